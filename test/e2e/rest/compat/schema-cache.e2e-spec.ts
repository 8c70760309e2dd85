import { request, waitFor } from '../../../support/http';
import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, failed, ok, pgError, type Client, view } from './supabase-client';

/** DDL through the SQL endpoint is visible to supabase-js without any reload step. */
describe('supabase-js and schema changes', () => {
  let f: RestFixture;
  let db: Client;

  beforeAll(async () => {
    f = await bootRestFixture();
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  it('a table created through the SQL endpoint is readable on the very next request', async () => {
    // Warm the schema cache first, so that a stale cache would show.
    expect(view(await db.from('films').select('id').eq('id', 1))).toEqual(ok([{ id: 1 }]));
    await f.sql(`
      CREATE TABLE fresh (id int PRIMARY KEY, label text);
      INSERT INTO fresh VALUES (1, 'new');
      GRANT ALL ON fresh TO anon, authenticated, service_role;
    `);
    expect(view(await db.from('fresh').select('*'))).toEqual(ok([{ id: 1, label: 'new' }]));
    expect(view(await db.from('fresh').insert({ id: 2, label: 'two' }).select('id'))).toEqual(
      ok([{ id: 2 }], 201),
    );
  });

  it('a column added with ALTER TABLE is usable at once (select, filter, insert)', async () => {
    await f.sql(`
      CREATE TABLE grows (id int PRIMARY KEY);
      INSERT INTO grows VALUES (1);
      GRANT ALL ON grows TO anon, authenticated, service_role;
    `);
    expect(view(await db.from('grows').select('*'))).toEqual(ok([{ id: 1 }]));
    await f.sql(`ALTER TABLE grows ADD COLUMN colour text DEFAULT 'red'`);
    expect(view(await db.from('grows').select('id,colour'))).toEqual(
      ok([{ id: 1, colour: 'red' }]),
    );
    const inserted = await db.from('grows').insert({ id: 2, colour: 'blue' }).select().single();
    expect(view(inserted)).toEqual(ok({ id: 2, colour: 'blue' }, 201));
    expect(view(await db.from('grows').select('id').eq('colour', 'blue'))).toEqual(ok([{ id: 2 }]));
  });

  it('a new foreign key is embeddable, a new function callable, at once', async () => {
    await f.sql(`
      CREATE TABLE awards (id int PRIMARY KEY, film_id int REFERENCES films(id), name text);
      INSERT INTO awards VALUES (1, 3, 'Oscar');
      GRANT ALL ON awards TO anon, authenticated, service_role;
      CREATE FUNCTION award_count() RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM awards';
    `);
    const embedded = await db.from('films').select('title,awards(name)').eq('id', 3);
    expect(view(embedded)).toEqual(
      ok([{ title: 'Lost in Translation', awards: [{ name: 'Oscar' }] }]),
    );
    expect(view(await db.rpc('award_count'))).toEqual(ok(1));
  });

  it('a dropped table is gone on the next request (PGRST205)', async () => {
    await f.sql(`CREATE TABLE doomed (id int); GRANT ALL ON doomed TO service_role;`);
    expect(view(await db.from('doomed').select())).toEqual(ok([]));
    await f.sql('DROP TABLE doomed');
    expect(view(await db.from('doomed').select())).toEqual(
      failed(
        404,
        pgError('PGRST205', "Could not find the table 'public.doomed' in the schema cache"),
      ),
    );
  });

  it('db.schema on a schema that is not exposed is PGRST106, 406; exposing it makes it work', async () => {
    // The project's admin role may create schemas, as Supabase's postgres role does.
    await f.sql(`
      CREATE SCHEMA other;
      CREATE TABLE other.things (id int PRIMARY KEY, name text);
      INSERT INTO other.things VALUES (1, 'thing one');
      GRANT USAGE ON SCHEMA other TO anon, authenticated, service_role;
      GRANT ALL ON ALL TABLES IN SCHEMA other TO anon, authenticated, service_role;
    `);
    const other = clientFor(f, 'service', { db: { schema: 'other' } });
    const refused = failed(
      406,
      pgError(
        'PGRST106',
        'Invalid schema: other',
        null,
        'Only the following schemas are exposed: public',
      ),
    );
    expect(view(await other.from('things').select())).toEqual(refused);
    expect(view(await db.schema('other').from('things').insert({ id: 2, name: 'x' }))).toEqual(
      refused,
    );

    const patched = await request(
      f.platform.control,
      'PATCH',
      `/v1/projects/${f.project.ref}/postgrest`,
      {
        token: f.token,
        body: { db_schema: 'public,other' },
      },
    );
    expect(patched.status).toBe(200);
    // The data plane drops its cached project settings on an invalidation message.
    await waitFor(
      'schema other to be exposed',
      async () => {
        const res = await other.from('things').select('id');
        return res.status === 200;
      },
      5_000,
    );

    expect(view(await other.from('things').select('*'))).toEqual(
      ok([{ id: 1, name: 'thing one' }]),
    );
    const inserted = await other.from('things').insert({ id: 2, name: 'thing two' }).select();
    expect(view(inserted)).toEqual(ok([{ id: 2, name: 'thing two' }], 201));
    // .schema() switches per query; the default schema stays the first exposed one.
    expect(view(await db.schema('other').from('things').select('id').order('id'))).toEqual(
      ok([{ id: 1 }, { id: 2 }]),
    );
    expect(view(await db.from('films').select('id').eq('id', 2))).toEqual(ok([{ id: 2 }]));
    expect(view(await db.from('things').select())).toEqual(
      failed(
        404,
        pgError('PGRST205', "Could not find the table 'public.things' in the schema cache"),
      ),
    );
    const anon = clientFor(f, 'anon', { db: { schema: 'other' } });
    expect(view(await anon.from('things').select('name').eq('id', 1))).toEqual(
      ok([{ name: 'thing one' }]),
    );
    const unknown = clientFor(f, 'service', { db: { schema: 'nowhere' } });
    expect(view(await unknown.from('things').select())).toEqual(
      failed(
        406,
        pgError(
          'PGRST106',
          'Invalid schema: nowhere',
          null,
          'Only the following schemas are exposed: public, other',
        ),
      ),
    );
  });
});
