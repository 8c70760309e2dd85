import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, failed, ok, pgError, type Client, view } from './supabase-client';

/** order / limit / range / single / maybeSingle / counts / csv through supabase-js. */
describe('supabase-js transforms', () => {
  let f: RestFixture;
  let db: Client;
  const ids = (...list: number[]) => list.map((id) => ({ id }));

  beforeAll(async () => {
    f = await bootRestFixture();
    // Planner statistics, so that count=planned reads the real row count.
    await f.sql('ANALYZE films');
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  it('orders by several columns, descending, nulls first or last', async () => {
    const byDirector = await db
      .from('films')
      .select('id')
      .not('director_id', 'is', null)
      .order('director_id', { ascending: false })
      .order('year');
    expect(view(byDirector)).toEqual(ok(ids(5, 3, 4, 1, 2)));
    // PostgreSQL sorts nulls last ascending and first descending, unless told otherwise.
    const films = () => db.from('films').select('id');
    expect(view(await films().order('year'))).toEqual(ok(ids(1, 2, 5, 3, 4, 6)));
    expect(view(await films().order('year', { nullsFirst: true }))).toEqual(
      ok(ids(6, 1, 2, 5, 3, 4)),
    );
    expect(view(await films().order('year', { ascending: false }))).toEqual(
      ok(ids(6, 4, 3, 5, 2, 1)),
    );
    expect(view(await films().order('year', { ascending: false, nullsFirst: false }))).toEqual(
      ok(ids(4, 3, 5, 2, 1, 6)),
    );
    const byBudget = await films()
      .order('data->budget', { ascending: false, nullsFirst: false })
      .order('id', { ascending: false });
    expect(view(byBudget)).toEqual(ok(ids(2, 1, 5, 3, 6, 4)));
  });

  it('orders by a column of a to-one embed', async () => {
    const res = await db
      .from('films')
      .select('id,directors(last_name)')
      .order('directors(last_name)')
      .order('id');
    expect(view(res)).toEqual(
      ok([
        { id: 5, directors: { last_name: 'Campion' } },
        { id: 3, directors: { last_name: 'Coppola' } },
        { id: 4, directors: { last_name: 'Coppola' } },
        { id: 1, directors: { last_name: 'Scott' } },
        { id: 2, directors: { last_name: 'Scott' } },
        { id: 6, directors: null },
      ]),
    );
  });

  it('limit and range() paginate', async () => {
    const films = () => db.from('films').select('id').order('id');
    expect(view(await films().limit(2))).toEqual(ok(ids(1, 2)));
    expect(view(await films().range(2, 4))).toEqual(ok(ids(3, 4, 5)));
    expect(view(await films().range(5, 9))).toEqual(ok(ids(6)));
    expect(view(await films().range(6, 9))).toEqual(ok([]));
    expect(view(await films().limit(0))).toEqual(ok([]));
  });

  it('single() returns one row as an object', async () => {
    const res = await db.from('films').select('id,title').eq('id', 4).single();
    expect(view(res)).toEqual(ok({ id: 4, title: 'Marie Antoinette' }));
  });

  it('single() with 0 or several rows is PGRST116, 406', async () => {
    const none = await db.from('films').select('id').eq('id', 99).single();
    expect(view(none)).toEqual(
      failed(
        406,
        pgError(
          'PGRST116',
          'Cannot coerce the result to a single JSON object',
          'The result contains 0 rows',
        ),
      ),
    );
    const two = await db.from('films').select('id').lt('id', 3).single();
    expect(view(two)).toEqual(
      failed(
        406,
        pgError(
          'PGRST116',
          'Cannot coerce the result to a single JSON object',
          'The result contains 2 rows',
        ),
      ),
    );
  });

  it('maybeSingle() gives null for no row and the object for one', async () => {
    expect(view(await db.from('films').select('id').eq('id', 99).maybeSingle())).toEqual(ok(null));
    expect(view(await db.from('films').select('id,year').eq('id', 2).maybeSingle())).toEqual(
      ok({ id: 2, year: 1982 }),
    );
  });

  it('count exact / planned / estimated with head: true (no body)', async () => {
    for (const count of ['exact', 'planned', 'estimated'] as const) {
      const res = await db.from('films').select('*', { count, head: true });
      expect({ mode: count, ...view(res) }).toEqual({ mode: count, ...ok(null, 200, 6) });
    }
    const filtered = await db
      .from('films')
      .select('id', { count: 'exact', head: true })
      .eq('director_id', 1);
    expect(view(filtered)).toEqual(ok(null, 200, 2));
    const none = await db.from('films').select('id', { count: 'exact', head: true }).gt('id', 99);
    expect(view(none)).toEqual(ok(null, 200, 0));
  });

  it('count with rows: total ignores the limit, a partial page is 206', async () => {
    const page = await db.from('films').select('id', { count: 'exact' }).order('id').range(1, 2);
    expect(view(page)).toEqual(ok(ids(2, 3), 206, 6));
    const all = await db.from('directors').select('id', { count: 'exact' }).order('id');
    expect(view(all)).toEqual(ok(ids(1, 2, 3), 200, 3));
  });

  it('csv() returns PostgREST CSV text', async () => {
    const res = await db
      .from('films')
      .select('id,title,tags,rating,year')
      .in('id', [1, 2, 5, 6])
      .order('id')
      .csv();
    expect(view(res)).toEqual(
      ok(
        'id,title,tags,rating,year\n' +
          '1,Alien,"{scifi,horror}",8.5,1979\n' +
          '2,"Blade Runner","{scifi,noir}",8.1,1982\n' +
          '5,"The Piano","{drama,""period, romance""}",7.5,1993\n' +
          '6,"Untitled (draft)",{},,',
      ),
    );
  });
});
