import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, createTestClient, ok, type Client, view } from './supabase-client';

/** `select(...)` grammar through supabase-js: columns, aliases, casts, JSON paths, embeds. */
describe('supabase-js select and embedding', () => {
  let f: RestFixture;
  let db: Client;

  beforeAll(async () => {
    f = await bootRestFixture();
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  it('selects listed columns, in any order, with whitespace the client strips', async () => {
    const res = await db.from('films').select('title, id').eq('id', 1);
    expect(view(res)).toEqual(ok([{ title: 'Alien', id: 1 }]));
  });

  it('selects * with every column type rendered as PostgREST does', async () => {
    expect(view(await db.from('directors').select('*').order('id'))).toEqual(
      ok([
        { id: 1, first_name: 'Ridley', last_name: 'Scott' },
        { id: 2, first_name: 'Sofia', last_name: 'Coppola' },
        { id: 3, first_name: 'Jane', last_name: 'Campion' },
      ]),
    );
    const { data, error, status } = await db.from('films').select().in('id', [5, 6]).order('id');
    expect({ error, status }).toEqual({ error: null, status: 200 });
    expect(data).toEqual([
      {
        id: 5,
        director_id: 3,
        title: 'The Piano',
        year: 1993,
        rating: 7.5,
        tags: ['drama', 'period, romance'],
        data: { budget: 7 },
        runtime: '[120,122)',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/),
      },
      {
        id: 6,
        director_id: null,
        title: 'Untitled (draft)',
        year: null,
        rating: null,
        tags: [],
        data: null,
        runtime: null,
        created_at: expect.any(String),
      },
    ]);
  });

  it('renames columns with aliases', async () => {
    const res = await db.from('films').select('name:title,released:year').eq('id', 2);
    expect(view(res)).toEqual(ok([{ name: 'Blade Runner', released: 1982 }]));
  });

  it('casts columns (year::text, rating::int)', async () => {
    const res = await db.from('films').select('id,year::text,score:rating::int').eq('id', 1);
    expect(view(res)).toEqual(ok([{ id: 1, year: '1979', score: 9 }]));
  });

  it('reads JSON paths: -> keeps JSON, ->> gives text, named after the last key', async () => {
    const res = await db
      .from('films')
      .select('id,data->budget,crew:data->crew,dp:data->crew->>dp,data->>budget')
      .in('id', [1, 3, 4])
      .order('id');
    // `data->budget` and `data->>budget` are both named `budget`: the last one wins in JS.
    expect(view(res)).toEqual(
      ok([
        { id: 1, budget: '11', crew: { dp: 'Derek' }, dp: 'Derek' },
        { id: 3, budget: '4', crew: null, dp: null },
        { id: 4, budget: null, crew: null, dp: null },
      ]),
    );
    const jsonb = await db.from('films').select('id,data->budget').eq('id', 2);
    expect(view(jsonb)).toEqual(ok([{ id: 2, budget: 28 }]));
  });

  it('embeds a many-to-one relation as an object (null when there is none)', async () => {
    const res = await db
      .from('films')
      .select('id,directors(last_name)')
      .in('id', [1, 6])
      .order('id');
    expect(view(res)).toEqual(
      ok([
        { id: 1, directors: { last_name: 'Scott' } },
        { id: 6, directors: null },
      ]),
    );
  });

  it('embeds a one-to-many relation as an array ([] when empty)', async () => {
    const res = await db
      .from('films')
      .select('id,reviews(stars,body)')
      .in('id', [1, 4])
      .order('id')
      .order('stars', { referencedTable: 'reviews', ascending: false });
    expect(view(res)).toEqual(
      ok([
        {
          id: 1,
          reviews: [
            { stars: 5, body: 'classic' },
            { stars: 4, body: 'tense' },
          ],
        },
        { id: 4, reviews: [] },
      ]),
    );
  });

  it('embeds many-to-many through the film_actors junction table', async () => {
    const res = await db
      .from('films')
      .select('title,actors(name)')
      .in('id', [3, 4])
      .order('id')
      .order('name', { referencedTable: 'actors' });
    expect(view(res)).toEqual(
      ok([
        {
          title: 'Lost in Translation',
          actors: [{ name: 'Bill Murray' }, { name: 'Scarlett Johansson' }],
        },
        { title: 'Marie Antoinette', actors: [] },
      ]),
    );
    const back = await db.from('actors').select('name,films(title)').eq('id', 5);
    expect(view(back)).toEqual(ok([{ name: 'Holly Hunter', films: [{ title: 'The Piano' }] }]));
  });

  it('nests embeds several levels deep', async () => {
    const res = await db
      .from('directors')
      .select('last_name,films(title,reviews(stars),film_actors(character,actors(name)))')
      .eq('id', 1)
      .order('id', { referencedTable: 'films' })
      .order('stars', { referencedTable: 'films.reviews' });
    expect(view(res)).toEqual(
      ok([
        {
          last_name: 'Scott',
          films: [
            {
              title: 'Alien',
              reviews: [{ stars: 4 }, { stars: 5 }],
              film_actors: [{ character: 'Ripley', actors: { name: 'Sigourney Weaver' } }],
            },
            {
              title: 'Blade Runner',
              reviews: [{ stars: 5 }],
              film_actors: [{ character: 'Deckard', actors: { name: 'Harrison Ford' } }],
            },
          ],
        },
      ]),
    );
  });

  it('!inner with a filter on the embed drops the parents without a match', async () => {
    const inner = await db
      .from('films')
      .select('id,directors!inner(last_name)')
      .eq('directors.last_name', 'Coppola')
      .order('id');
    expect(view(inner)).toEqual(
      ok([
        { id: 3, directors: { last_name: 'Coppola' } },
        { id: 4, directors: { last_name: 'Coppola' } },
      ]),
    );
    // Without !inner the same filter only empties the embed.
    const left = await db
      .from('films')
      .select('id,directors(last_name)')
      .eq('directors.last_name', 'Coppola')
      .lte('id', 3)
      .order('id');
    expect(view(left)).toEqual(
      ok([
        { id: 1, directors: null },
        { id: 2, directors: null },
        { id: 3, directors: { last_name: 'Coppola' } },
      ]),
    );
    const counted = await db
      .from('films')
      .select('id,reviews!inner(stars)', { count: 'exact', head: true })
      .eq('reviews.stars', 5);
    expect(view(counted)).toEqual(ok(null, 200, 2));
  });

  it('disambiguates with !fk_hint (constraint name or column name)', async () => {
    const byConstraint = await db
      .from('films')
      .select('id,directors!films_director_id_fkey(last_name)')
      .eq('id', 5);
    expect(view(byConstraint)).toEqual(ok([{ id: 5, directors: { last_name: 'Campion' } }]));
    const byColumn = await db
      .from('films')
      .select('id,director:directors!director_id(first_name)')
      .eq('id', 5);
    expect(view(byColumn)).toEqual(ok([{ id: 5, director: { first_name: 'Jane' } }]));
  });

  it('spreads a to-one embed into the parent (...directors(last_name))', async () => {
    const res = await db
      .from('films')
      .select('id,...directors(last_name,director_first:first_name)')
      .in('id', [2, 6])
      .order('id');
    expect(view(res)).toEqual(
      ok([
        { id: 2, last_name: 'Scott', director_first: 'Ridley' },
        { id: 6, last_name: null, director_first: null },
      ]),
    );
  });

  it('aliases embeds, also the same relation twice', async () => {
    const res = await db
      .from('directors')
      .select('name:last_name,early:films(title),late:films(title)')
      .eq('id', 2)
      .lt('early.year', 2005)
      .gte('late.year', 2005);
    expect(view(res)).toEqual(
      ok([
        {
          name: 'Coppola',
          early: [{ title: 'Lost in Translation' }],
          late: [{ title: 'Marie Antoinette' }],
        },
      ]),
    );
  });

  it('filters, orders, limits and ranges embedded rows via referencedTable / foreignTable', async () => {
    const res = await db
      .from('directors')
      .select('id,films(title,year)')
      .in('id', [1, 2])
      .order('id')
      .order('year', { referencedTable: 'films', ascending: false })
      .limit(1, { referencedTable: 'films' });
    expect(view(res)).toEqual(
      ok([
        { id: 1, films: [{ title: 'Blade Runner', year: 1982 }] },
        { id: 2, films: [{ title: 'Marie Antoinette', year: 2006 }] },
      ]),
    );
    const ranged = await db
      .from('films')
      .select('id,reviews(id)')
      .eq('id', 1)
      .order('id', { foreignTable: 'reviews' })
      .range(1, 1, { foreignTable: 'reviews' });
    expect(view(ranged)).toEqual(ok([{ id: 1, reviews: [{ id: 2 }] }]));
    const filtered = await db
      .from('films')
      .select('id,reviews(stars)')
      .eq('id', 1)
      .gt('reviews.stars', 4);
    expect(view(filtered)).toEqual(ok([{ id: 1, reviews: [{ stars: 5 }] }]));
  });

  it('a client on the bare data URL finds the project from the apikey', async () => {
    const bare = createTestClient(f.platform.data, f.project.anonKey);
    expect(view(await bare.from('directors').select('last_name').eq('id', 3))).toEqual(
      ok([{ last_name: 'Campion' }]),
    );
  });

  it('an anon client embeds across tables granted to anon', async () => {
    const anon = clientFor(f, 'anon');
    const res = await anon.from('films').select('title,directors(last_name)').eq('id', 3);
    expect(view(res)).toEqual(
      ok([{ title: 'Lost in Translation', directors: { last_name: 'Coppola' } }]),
    );
  });
});
