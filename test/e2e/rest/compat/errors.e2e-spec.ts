import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, failed, ok, pgError, type Client, view } from './supabase-client';

/** `notes` for constraint and column errors; `guarded` is under row level security. */
const ERRORS_SQL = `
CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL, n int DEFAULT 0, tag text DEFAULT 'none');
INSERT INTO notes (id, body) VALUES (1, 'one');
CREATE TABLE guarded (id int PRIMARY KEY, owner text NOT NULL);
ALTER TABLE guarded ENABLE ROW LEVEL SECURITY;
CREATE POLICY guarded_read ON guarded FOR SELECT TO anon USING (owner = 'public');
INSERT INTO guarded VALUES (1, 'public'), (2, 'private');
GRANT ALL ON notes, guarded TO anon, authenticated, service_role;
`;

/** Error results as supabase-js hands them to the app: PostgREST codes, statuses, texts. */
describe('supabase-js errors', () => {
  let f: RestFixture;
  let db: Client;

  beforeAll(async () => {
    f = await bootRestFixture(ERRORS_SQL);
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  describe('constraint, type and schema errors', () => {
    it('unique violation: 23505, 409', async () => {
      await db.from('items').insert({ name: 'dup' });
      const res = await db.from('items').insert({ name: 'dup' });
      expect(view(res)).toEqual(
        failed(
          409,
          pgError(
            '23505',
            'duplicate key value violates unique constraint "items_name_key"',
            'Key (name)=(dup) already exists.',
          ),
        ),
      );
    });

    it('foreign key violation: 23503, 409', async () => {
      const res = await db.from('reviews').insert({ film_id: 999, stars: 3 });
      expect(view(res)).toEqual(
        failed(
          409,
          pgError(
            '23503',
            'insert or update on table "reviews" violates foreign key constraint "reviews_film_id_fkey"',
            'Key (film_id)=(999) is not present in table "films".',
          ),
        ),
      );
    });

    it('not-null and check violations: 23502 / 23514, 400', async () => {
      const nullBody = await db.from('notes').insert({ id: 110, body: null });
      expect(view(nullBody)).toEqual(
        failed(
          400,
          pgError(
            '23502',
            'null value in column "body" of relation "notes" violates not-null constraint',
            'Failing row contains (110, null, 0, none).',
          ),
        ),
      );
      const badStars = await db.from('reviews').insert({ film_id: 1, stars: 9 });
      expect(view(badStars)).toEqual(
        failed(400, {
          ...pgError(
            '23514',
            'new row for relation "reviews" violates check constraint "reviews_stars_check"',
          ),
          // The serial id depends on how many inserts ran before.
          details: expect.stringMatching(/^Failing row contains \(\d+, 1, 9, null\)\.$/),
        }),
      );
    });

    it('a value that is not an integer: 22P02, 400 (in a filter and in a body)', async () => {
      const expected = failed(
        400,
        pgError('22P02', 'invalid input syntax for type integer: "abc"'),
      );
      expect(view(await db.from('films').select('id').eq('id', 'abc'))).toEqual(expected);
      expect(view(await db.from('notes').insert({ id: 'abc', body: 'x' }))).toEqual(expected);
      // Row 1 exists: the body is only converted for rows the UPDATE reaches.
      expect(view(await db.from('notes').update({ n: 'abc' }).eq('id', 1))).toEqual(expected);
    });

    it('an unknown table: PGRST205, 404, with a suggestion when one is close', async () => {
      expect(view(await db.from('qqqqqqqq').select())).toEqual(
        failed(
          404,
          pgError('PGRST205', "Could not find the table 'public.qqqqqqqq' in the schema cache"),
        ),
      );
      expect(view(await db.from('film').insert({ id: 1 }))).toEqual(
        failed(
          404,
          pgError(
            'PGRST205',
            "Could not find the table 'public.film' in the schema cache",
            null,
            "Perhaps you meant the table 'public.films'",
          ),
        ),
      );
    });

    it('an unknown column: 42703 on reads, PGRST204 on writes', async () => {
      const expected = failed(400, pgError('42703', 'column films.nope does not exist'));
      expect(view(await db.from('films').select('id,nope'))).toEqual(expected);
      expect(view(await db.from('films').select('id').eq('nope', 1))).toEqual(expected);
      const write = failed(
        400,
        pgError('PGRST204', "Could not find the 'nope' column of 'notes' in the schema cache"),
      );
      expect(view(await db.from('notes').insert({ id: 120, body: 'x', nope: 1 }))).toEqual(write);
      expect(view(await db.from('notes').update({ nope: 1 }).eq('id', 1))).toEqual(write);
    });
  });

  describe('as anon, under row level security', () => {
    it('reads only what the policy shows', async () => {
      const anon = clientFor(f, 'anon');
      expect(view(await anon.from('guarded').select('id').order('id'))).toEqual(ok([{ id: 1 }]));
      expect(view(await db.from('guarded').select('id').order('id'))).toEqual(
        ok([{ id: 1 }, { id: 2 }]),
      );
    });

    it('a write no policy allows: 42501, 401 for anon', async () => {
      const anon = clientFor(f, 'anon');
      const res = await anon.from('guarded').insert({ id: 3, owner: 'public' });
      expect(view(res)).toEqual(
        failed(
          401,
          pgError('42501', 'new row violates row-level security policy for table "guarded"'),
        ),
      );
      // Updates and deletes of invisible rows match nothing.
      const update = await anon.from('guarded').update({ owner: 'x' }).eq('id', 2).select();
      expect(view(update)).toEqual(ok([]));
    });
  });
});
