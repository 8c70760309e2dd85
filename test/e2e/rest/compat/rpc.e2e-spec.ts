import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, failed, ok, pgError, type Client, view } from './supabase-client';

/** `supabase.rpc(...)` against the fixture's functions (add, films_since, touch_item, ...). */
describe('supabase-js rpc', () => {
  let f: RestFixture;
  let db: Client;

  beforeAll(async () => {
    f = await bootRestFixture();
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  it('POSTs the arguments and returns a scalar result as data', async () => {
    expect(view(await db.rpc('add', { a: 1, b: 2 }))).toEqual(ok(3));
    expect(view(await db.rpc('add', { b: -10, a: 4 }))).toEqual(ok(-6));
  });

  it('get: true sends the arguments in the query string', async () => {
    expect(view(await db.rpc('add', { a: 20, b: 22 }, { get: true }))).toEqual(ok(42));
    const titles = await db.rpc('film_titles', {}, { get: true }).lt('id', 3);
    expect(view(titles)).toEqual(
      ok([
        { id: 1, title: 'Alien' },
        { id: 2, title: 'Blade Runner' },
      ]),
    );
  });

  it('a set-returning function takes select, filters, order and limit', async () => {
    const recent = await db
      .rpc('films_since', { y: 2000 })
      .select('id,title')
      .order('year', { ascending: false });
    expect(view(recent)).toEqual(
      ok([
        { id: 4, title: 'Marie Antoinette' },
        { id: 3, title: 'Lost in Translation' },
      ]),
    );
    const filtered = await db
      .rpc('films_since', { y: 1980 })
      .select('title')
      .gt('rating', 7.6)
      .order('id')
      .limit(1);
    expect(view(filtered)).toEqual(ok([{ title: 'Blade Runner' }]));
    const embedded = await db.rpc('films_since', { y: 2004 }).select('title,directors(last_name)');
    expect(view(embedded)).toEqual(
      ok([{ title: 'Marie Antoinette', directors: { last_name: 'Coppola' } }]),
    );
    const single = await db.rpc('films_since', { y: 2005 }).select('id,year').single();
    expect(view(single)).toEqual(ok({ id: 4, year: 2006 }));
  });

  it('head: true with count gives the count and no data', async () => {
    const res = await db.rpc('films_since', { y: 2000 }, { head: true, count: 'exact' });
    expect(view(res)).toEqual(ok(null, 200, 2));
    const none = await db.rpc('films_since', { y: 2100 }, { head: true, count: 'exact' });
    expect(view(none)).toEqual(ok(null, 200, 0));
  });

  it('count with rows: the total of the function result, 206 for a partial page', async () => {
    const res = await db
      .rpc('films_since', { y: 1990 }, { count: 'exact' })
      .select('id')
      .order('id')
      .limit(1);
    expect(view(res)).toEqual(ok([{ id: 3 }], 206, 3));
  });

  it('a void function answers 204 with data null, and its writes are committed', async () => {
    await db.from('items').insert({ name: 'touched', qty: 1 });
    expect(view(await db.rpc('touch_item', { item_name: 'touched' }))).toEqual(ok(null, 204));
    const item = await db.from('items').select('qty').eq('name', 'touched').single();
    expect(view(item)).toEqual(ok({ qty: 2 }));
  });

  it('a function with one unnamed json parameter receives the whole body', async () => {
    const body = { a: 1, nested: { list: [1, 'two', null] }, text: 'hé "quoted"' };
    expect(view(await db.rpc('echo_json', body))).toEqual(ok(body));
  });

  it('runs as the role of the key (auth claims visible to SQL)', async () => {
    expect(view(await db.rpc('whoami'))).toEqual(ok({ role: 'service_role', sub: null }));
    const anon = clientFor(f, 'anon');
    expect(view(await anon.rpc('whoami'))).toEqual(ok({ role: 'anon', sub: null }));
  });

  it('a bad argument value is 22P02, 400', async () => {
    expect(view(await db.rpc('add', { a: 'x', b: 1 }))).toEqual(
      failed(400, pgError('22P02', 'invalid input syntax for type integer: "x"')),
    );
  });

  it('an unknown function is PGRST202, 404, with a suggestion when the name is close', async () => {
    expect(view(await db.rpc('qqqqqqqq', { a: 1, b: 2 }))).toEqual(
      failed(
        404,
        pgError(
          'PGRST202',
          'Could not find the function public.qqqqqqqq(a, b) in the schema cache',
          'Searched for the function public.qqqqqqqq with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
        ),
      ),
    );
    expect(view(await db.rpc('films_sincee', { y: 1, z: 2 }))).toEqual(
      failed(
        404,
        pgError(
          'PGRST202',
          'Could not find the function public.films_sincee(y, z) in the schema cache',
          'Searched for the function public.films_sincee with parameters y, z or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
          'Perhaps you meant to call the function public.films_since',
        ),
      ),
    );
  });
});
