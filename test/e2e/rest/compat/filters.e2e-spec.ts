import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, ok, type Client, view } from './supabase-client';

/** A boolean column for `is(true|false)`: the shared fixture has none. */
const FLAGS_SQL = `
CREATE TABLE flags (id int PRIMARY KEY, done boolean);
INSERT INTO flags VALUES (1, true), (2, false), (3, null);
GRANT ALL ON flags TO anon, authenticated, service_role;
`;

/** Every filter of postgrest-js's PostgrestFilterBuilder, against the fixture's films. */
describe('supabase-js filters', () => {
  let f: RestFixture;
  let db: Client;
  /** `select('id')` of films, ordered by id, for asserting which rows a filter keeps. */
  const films = () => db.from('films').select('id').order('id');
  const ids = (...list: number[]) => ok(list.map((id) => ({ id })));

  beforeAll(async () => {
    f = await bootRestFixture(FLAGS_SQL);
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  it('eq, neq (nulls are neither equal nor unequal)', async () => {
    expect(view(await films().eq('title', 'Alien'))).toEqual(ids(1));
    expect(view(await films().eq('id', 3))).toEqual(ids(3));
    expect(view(await films().neq('director_id', 1))).toEqual(ids(3, 4, 5));
  });

  it('gt, gte, lt, lte on int and numeric columns', async () => {
    expect(view(await films().gt('year', 2003))).toEqual(ids(4));
    expect(view(await films().gte('year', 2003))).toEqual(ids(3, 4));
    expect(view(await films().lt('rating', 7.5))).toEqual(ids(4));
    expect(view(await films().lte('rating', 7.5))).toEqual(ids(4, 5));
    expect(view(await films().gte('year', 1980).lte('year', 2000))).toEqual(ids(2, 5));
  });

  it('like and ilike, with % and the * wildcard alias', async () => {
    expect(view(await films().like('title', '%Run%'))).toEqual(ids(2));
    expect(view(await films().like('title', '%run%'))).toEqual(ids());
    expect(view(await films().like('title', '*in*'))).toEqual(ids(3, 4));
    expect(view(await films().ilike('title', '*the*'))).toEqual(ids(5));
    expect(view(await films().ilike('title', 'a%'))).toEqual(ids(1));
  });

  it('likeAllOf, likeAnyOf, ilikeAllOf, ilikeAnyOf', async () => {
    expect(view(await films().likeAllOf('title', ['%a%', '%o%']))).toEqual(ids(3, 4, 5));
    expect(view(await films().likeAnyOf('title', ['A%', 'B%']))).toEqual(ids(1, 2));
    expect(view(await films().ilikeAllOf('title', ['%A%', '%N%', '%E%']))).toEqual(
      ids(1, 2, 4, 5, 6),
    );
    expect(view(await films().ilikeAnyOf('title', ['a*', 'THE*']))).toEqual(ids(1, 5));
  });

  it('regexMatch and regexIMatch', async () => {
    expect(view(await films().regexMatch('title', '^[AB]'))).toEqual(ids(1, 2));
    expect(view(await films().regexMatch('title', '^the'))).toEqual(ids());
    expect(view(await films().regexIMatch('title', '^the'))).toEqual(ids(5));
    expect(view(await films().regexIMatch('title', 'N$'))).toEqual(ids(1, 3));
  });

  it('is null / true / false', async () => {
    expect(view(await films().is('year', null))).toEqual(ids(6));
    const flags = () => db.from('flags').select('id').order('id');
    expect(view(await flags().is('done', true))).toEqual(ids(1));
    expect(view(await flags().is('done', false))).toEqual(ids(2));
    expect(view(await flags().is('done', null))).toEqual(ids(3));
  });

  it('isDistinct keeps nulls', async () => {
    expect(view(await films().isDistinct('director_id', 1))).toEqual(ids(3, 4, 5, 6));
    expect(view(await db.from('flags').select('id').isDistinct('done', true).order('id'))).toEqual(
      ids(2, 3),
    );
  });

  it('in, including values the client quotes (commas, parentheses)', async () => {
    expect(view(await films().in('id', [5, 1, 3]))).toEqual(ids(1, 3, 5));
    expect(view(await films().in('title', ['Untitled (draft)', 'Alien', 'a,b']))).toEqual(
      ids(1, 6),
    );
    expect(view(await films().in('id', []))).toEqual(ids());
  });

  it('not: not.is.null, not.in, not.eq; notIn', async () => {
    expect(view(await films().not('year', 'is', null))).toEqual(ids(1, 2, 3, 4, 5));
    expect(view(await films().not('id', 'in', '(1,2,3)'))).toEqual(ids(4, 5, 6));
    expect(view(await films().not('title', 'eq', 'Alien').lt('id', 4))).toEqual(ids(2, 3));
    expect(view(await films().notIn('id', [2, 4, 6]))).toEqual(ids(1, 3, 5));
  });

  it('contains, containedBy, overlaps on arrays', async () => {
    expect(view(await films().contains('tags', ['scifi']))).toEqual(ids(1, 2));
    expect(view(await films().contains('tags', ['scifi', 'noir']))).toEqual(ids(2));
    expect(view(await films().containedBy('tags', ['drama', 'history']))).toEqual(ids(3, 4, 6));
    expect(view(await films().overlaps('tags', ['noir', 'history']))).toEqual(ids(2, 4));
    // An element with a comma must be quoted inside the array literal (the client does not).
    expect(view(await films().filter('tags', 'cs', '{"period, romance"}'))).toEqual(ids(5));
  });

  it('contains and containedBy on jsonb', async () => {
    expect(view(await films().contains('data', { crew: { dp: 'Derek' } }))).toEqual(ids(1));
    expect(view(await films().contains('data', { budget: 28 }))).toEqual(ids(2));
    expect(view(await films().containedBy('data', { budget: 4, extra: true }))).toEqual(ids(3));
  });

  it('contains, containedBy, overlaps on ranges', async () => {
    expect(view(await films().contains('runtime', '[111,112)'))).toEqual(ids(1, 2));
    expect(view(await films().contains('runtime', '[121,121]'))).toEqual(ids(4, 5));
    expect(view(await films().containedBy('runtime', '[100,121)'))).toEqual(ids(1, 2, 3));
    expect(view(await films().overlaps('runtime', '[104,111)'))).toEqual(ids(1, 2, 3));
  });

  it('rangeGt, rangeGte, rangeLt, rangeLte, rangeAdjacent', async () => {
    expect(view(await films().rangeGt('runtime', '[100,110)'))).toEqual(ids(1, 2, 4, 5));
    expect(view(await films().rangeGte('runtime', '[110,115)'))).toEqual(ids(1, 2, 4, 5));
    expect(view(await films().rangeLt('runtime', '[110,120)'))).toEqual(ids(3));
    expect(view(await films().rangeLte('runtime', '[100,120)'))).toEqual(ids(1, 2, 3));
    expect(view(await films().rangeAdjacent('runtime', '[105,110)'))).toEqual(ids(1, 2, 3));
  });

  it('textSearch: fts on a tsvector, plfts / phfts / wfts with a config on text', async () => {
    const docs = () => db.from('docs').select('id').order('id');
    expect(view(await docs().textSearch('tsv', 'quick & fox'))).toEqual(ids(1, 3));
    expect(view(await docs().textSearch('tsv', 'dog | brown'))).toEqual(ids(1, 2));
    expect(view(await docs().textSearch('body', 'quick & fox', { config: 'english' }))).toEqual(
      ids(1, 3),
    );
    expect(
      view(await docs().textSearch('body', 'quick fox', { type: 'plain', config: 'english' })),
    ).toEqual(ids(1, 3));
    expect(
      view(await docs().textSearch('body', 'quick brown', { type: 'phrase', config: 'english' })),
    ).toEqual(ids(1));
    expect(
      view(await docs().textSearch('body', 'brown quick', { type: 'phrase', config: 'english' })),
    ).toEqual(ids());
    expect(
      view(
        await docs().textSearch('body', 'quick -brown', { type: 'websearch', config: 'english' }),
      ),
    ).toEqual(ids(3));
    expect(view(await docs().textSearch('tsv', '"quick brown"', { type: 'websearch' }))).toEqual(
      ids(1),
    );
  });

  it('match({...}) ANDs equalities', async () => {
    expect(view(await films().match({ director_id: 2, year: 2003 }))).toEqual(ids(3));
    expect(view(await films().match({ director_id: 1, title: 'Alien' }))).toEqual(ids(1));
    expect(view(await films().match({ director_id: 1, year: 2003 }))).toEqual(ids());
  });

  it('or(...), with nested and(...), not, in and quoted values', async () => {
    expect(view(await films().or('year.lt.1980,year.gt.2005'))).toEqual(ids(1, 4));
    expect(view(await films().or('year.lt.1980,and(year.gt.2000,rating.gt.7)'))).toEqual(ids(1, 3));
    expect(view(await films().or('id.in.(1,2),title.eq."Untitled (draft)"'))).toEqual(ids(1, 2, 6));
    expect(view(await films().or('year.is.null,not.and(year.gte.1980,year.lte.2005)'))).toEqual(
      ids(1, 4, 6),
    );
    expect(view(await films().or('tags.cs.{drama,history},runtime.adj."[105,110)"'))).toEqual(
      ids(1, 2, 3, 4),
    );
    // or() is ANDed with the other filters.
    expect(view(await films().eq('director_id', 1).or('year.lt.1980,year.gt.2005'))).toEqual(
      ids(1),
    );
  });

  it('or(..., { referencedTable }) filters the embedded rows only', async () => {
    const res = await db
      .from('directors')
      .select('id,films(id)')
      .or('year.lt.1980,year.gt.2005', { referencedTable: 'films' })
      .order('id');
    expect(view(res)).toEqual(
      ok([
        { id: 1, films: [{ id: 1 }] },
        { id: 2, films: [{ id: 4 }] },
        { id: 3, films: [] },
      ]),
    );
  });

  it('filter(col, op, value) passes the operator verbatim', async () => {
    expect(view(await films().filter('id', 'in', '(2,4)'))).toEqual(ids(2, 4));
    expect(view(await films().filter('year', 'not.is', null).filter('year', 'lt', 1990))).toEqual(
      ids(1, 2),
    );
    expect(view(await films().filter('title', 'like', '*Piano'))).toEqual(ids(5));
    expect(view(await films().filter('tags', 'ov', '{horror,history}'))).toEqual(ids(1, 4));
  });

  it('filters on JSON paths compare jsonb (->) or text (->>)', async () => {
    expect(view(await films().gt('data->budget', 10))).toEqual(ids(1, 2));
    expect(view(await films().eq('data->crew->>dp', 'Jordan'))).toEqual(ids(2));
  });

  it('a filter on an anon client sees the same rows (table granted to anon)', async () => {
    const anon = clientFor(f, 'anon');
    expect(view(await anon.from('films').select('id').eq('director_id', 2).order('id'))).toEqual(
      ids(3, 4),
    );
  });
});
