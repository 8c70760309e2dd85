import { catchError } from '../parse/catch-error.spec-helper';
import { planUrl, tableOf, type UrlOptions } from '../testing/fixture-cache';
import { PLAN_LIMITS } from './plan';
import type { CallPlan, EmbedNode, ReadNode, ReadPlan, WritePlan } from './types';

const read = (url: string, options?: UrlOptions) => planUrl('GET', url, options) as ReadPlan;
const write = (method: string, url: string, options?: UrlOptions) =>
  planUrl(method, url, options) as WritePlan;
const call = (method: string, url: string, options?: UrlOptions) =>
  planUrl(method, url, options) as CallPlan;
const failure = (method: string, url: string, options?: UrlOptions) =>
  catchError(() => planUrl(method, url, options));

const embeds = (node: ReadNode): EmbedNode[] =>
  node.select.flatMap((i) => (i.kind === 'embed' ? [i.embed] : []));
const firstEmbed = (url: string): EmbedNode => embeds(read(url).root)[0]!;

describe('plan: tables', () => {
  it('resolves the target table as the root node of a read', () => {
    const plan = read('/films?select=title');
    expect(plan).toMatchObject({ action: 'read', schema: 'public', head: false, maxRows: 1000 });
    expect(plan.root).toMatchObject({ ref: '"public"."films"', name: 'films' });
    expect(plan.root.source).toEqual({ kind: 'table', table: tableOf('films') });
  });

  it.each([
    ['film', "Perhaps you meant the table 'public.films'"],
    ['zzzzzzzzzzzz', null],
  ])('answers an unknown table %s with PGRST205 and a fuzzy hint', (name, hint) => {
    const error = failure('GET', `/${name}`);
    expect(error).toMatchObject({ code: 'PGRST205', status: 404, details: null, hint });
    expect(error.message).toBe(`Could not find the table 'public.${name}' in the schema cache`);
  });
});

describe('plan: embedding', () => {
  const FK = 'films_director_id_fkey';
  const ACTOR_FK = 'film_actors_actor_id_fkey';

  it.each([
    ['/films?select=directors(name)', 'directors', 'm2o', FK, true],
    ['/directors?select=films(title)', 'films', 'o2m', FK, false],
    ['/films?select=actors(name)', 'actors', 'm2m', ACTOR_FK, false],
    ['/people?select=passports(number)', 'passports', 'o2o', 'passports_person_id_fkey', true],
    ['/passports?select=people(name)', 'people', 'o2o', 'passports_person_id_fkey', true],
    ['/films?select=director:directors(name)', 'director', 'm2o', FK, true],
    ['/films?select=directors!films_director_id_fkey(*)', 'directors', 'm2o', FK, true],
    ['/films?select=directors!director_id(*)', 'directors', 'm2o', FK, true],
    ['/films?select=directors!id(*)', 'directors', 'm2o', FK, true],
    ['/films?select=actors!film_actors(*)', 'actors', 'm2m', ACTOR_FK, false],
    ['/films?select=director_id(*)', 'director_id', 'm2o', FK, true],
    ['/films?select=films_director_id_fkey(*)', FK, 'm2o', FK, true],
    ['/orders?select=addresses!billing(*)', 'addresses', 'm2o', 'billing', true],
    ['/orders?select=addresses!shipping_address_id(*)', 'addresses', 'm2o', 'shipping', true],
    ['/employees?select=employees(name)', 'employees', 'o2m', 'employees_manager_id_fkey', false],
    ['/employees?select=manager_id(name)', 'manager_id', 'm2o', 'employees_manager_id_fkey', true],
    // A hint on a self-reference by table name still means the children (PostgREST §1.4).
    [
      '/employees?select=reports:employees!manager_id(name)',
      'reports',
      'o2m',
      'employees_manager_id_fkey',
      false,
    ],
    [
      '/employees?select=employees!employees_manager_id_fkey(name)',
      'employees',
      'o2m',
      'employees_manager_id_fkey',
      false,
    ],
  ])('%s embeds %s as %s through %s', (url, outputName, cardinality, constraint, toOne) => {
    const embed = firstEmbed(url);
    expect(embed).toMatchObject({ outputName, toOne, inner: false, spread: false, hidden: false });
    expect(embed.relationship).toMatchObject({ cardinality, constraint });
  });

  it('goes through the junction table for many-to-many', () => {
    const { relationship, node } = firstEmbed('/films?select=actors(name)');
    expect(relationship.junction).toMatchObject({
      table: { schema: 'public', name: 'film_actors' },
      originColumns: [{ from: 'id', to: 'film_id' }],
      targetColumns: [{ from: 'actor_id', to: 'id' }],
    });
    expect(node).toMatchObject({ ref: '"actors_1"', name: 'actors', limit: 1000 });
  });

  it('nests embeds, gives each a unique alias and caps to-many nodes at max rows', () => {
    const plan = read('/directors?select=films(title,reviews(body),d:directors(name))', {
      maxRows: 50,
    });
    const films = embeds(plan.root)[0]!;
    expect(films.node).toMatchObject({ ref: '"films_1"', limit: 50 });
    expect(embeds(films.node).map((e) => [e.outputName, e.node.ref, e.node.limit])).toEqual([
      ['reviews', '"reviews_1"', 50],
      ['d', '"directors_1"', undefined],
    ]);
    expect(films.lateral).toBe('"films_1_lat"');
  });

  it.each([
    ['directors!inner(name)', { inner: true, spread: false, hidden: false, spreadNames: [] }],
    ['directors!left(name)', { inner: false, spread: false, hidden: false, spreadNames: [] }],
    ['...directors(name,ln:last_name)', { spread: true, spreadNames: ['name', 'ln'] }],
    ['...directors(*)', { spread: true, spreadNames: ['id', 'name', 'last_name'] }],
    ['directors()', { hidden: true, spread: false }],
    ['directors!inner()', { hidden: true, inner: true }],
  ])('plans the embed form %s', (item, expected) => {
    expect(firstEmbed(`/films?select=title,${item}`)).toMatchObject(expected);
  });

  it('lists the names a nested embed contributes to a spread', () => {
    const embed = firstEmbed(
      '/reviews?select=...films(title,directors(name),...actors(aname:name))',
    );
    expect(embed.spreadNames).toEqual(['title', 'directors', 'aname']);
  });

  it.each([
    ['directorz', "Perhaps you meant 'directors' instead of 'directorz'."],
    ['zzzzzzzzzzzz', null],
  ])('answers an unknown relationship %s with PGRST200', (target, hint) => {
    const error = failure('GET', `/films?select=${target}(*)`);
    expect(error).toMatchObject({ code: 'PGRST200', status: 400, hint });
    expect(error.message).toBe(
      `Could not find a relationship between 'films' and '${target}' in the schema cache`,
    );
    expect(error.details).toBe(
      `Searched for a foreign key relationship between 'films' and '${target}' in the ` +
        "schema 'public', but no matches were found.",
    );
  });

  it('mentions the hint of an embed that matched nothing', () => {
    expect(failure('GET', '/films?select=reviews!nope(*)').details).toBe(
      "Searched for a foreign key relationship between 'films' and 'reviews' using the hint " +
        "'nope' in the schema 'public', but no matches were found.",
    );
  });

  it.each([
    [
      '/orders?select=addresses(*)',
      'orders',
      'addresses',
      'many-to-one',
      [
        'billing using orders(billing_address_id) and addresses(id)',
        'shipping using orders(shipping_address_id) and addresses(id)',
      ],
    ],
    [
      '/addresses?select=orders(*)',
      'addresses',
      'orders',
      'one-to-many',
      [
        'billing using addresses(id) and orders(billing_address_id)',
        'shipping using addresses(id) and orders(shipping_address_id)',
      ],
    ],
  ])('answers the ambiguous %s with PGRST201 (300)', (url, origin, target, cardinality, rels) => {
    const error = failure('GET', url);
    expect(error).toMatchObject({ code: 'PGRST201', status: 300 });
    expect(error.message).toBe(
      `Could not embed because more than one relationship was found for '${origin}' and '${target}'`,
    );
    const embedding = `${origin} with ${target}`;
    expect(error.details).toEqual(
      rels.map((relationship) => ({ cardinality, embedding, relationship })),
    );
    expect(error.hint).toBe(
      `Try changing '${target}' to one of the following: '${target}!billing', ` +
        `'${target}!shipping'. Find the desired relationship in the 'details' key.`,
    );
  });
});

describe('plan: embed modifiers', () => {
  it('attaches filters, order and range of an embed path to that node', () => {
    const plan = read(
      '/directors?select=films(title,reviews(body))&films.year=gt.2000&films.order=title.desc' +
        '&films.limit=5&films.offset=2&films.reviews.stars=eq.5&films.or=(year.lt.1950)',
    );
    const films = embeds(plan.root)[0]!.node;
    expect(films.conditions.map((c) => c.type)).toEqual(['filter', 'logic']);
    expect(films.order).toMatchObject([{ column: 'title', direction: 'desc' }]);
    expect(films).toMatchObject({ limit: 5, offset: 2 });
    expect(embeds(films)[0]!.node.conditions).toMatchObject([{ column: 'stars' }]);
    expect(plan.root.conditions).toEqual([]);
  });

  it('caps an embed limit at max rows', () => {
    const films = (q: string) =>
      embeds(read(`/directors?select=films(*)&${q}`, { maxRows: 20 }).root)[0]!.node;
    expect(films('films.limit=500').limit).toBe(20);
    expect(films('films.limit=3').limit).toBe(3);
  });

  it.each([
    ['/films?select=title&directors.name=eq.x', 'directors'],
    ['/films?select=title&actors.order=name', 'actors'],
    ['/films?select=title&reviews.limit=1', 'reviews'],
    ['/directors?select=films(title)&films.reviews.or=(stars.eq.1)', 'reviews'],
  ])('answers a modifier on a resource that is not embedded (%s) with PGRST108', (url, name) => {
    expect(failure('GET', url)).toMatchObject({
      code: 'PGRST108',
      status: 400,
      message: `'${name}' is not an embedded resource in this request`,
      hint: `Verify that '${name}' is included in the 'select' query parameter.`,
    });
  });

  it.each([
    ['directors=is.null', true],
    ['directors=not.is.null', false],
    ['directors=is.not_null', false],
    ['d=is.null', true],
  ])('turns %s on an embed into an embed-null condition', (filter, isNull) => {
    const plan = read(`/films?select=*,d:directors(*)&${filter}`);
    expect(plan.root.conditions).toMatchObject([{ type: 'embed-null', isNull }]);
  });

  it('accepts embed null tests inside logic trees', () => {
    const plan = read('/films?select=*,directors(*)&or=(directors.is.null,year.gt.2000)');
    expect(plan.root.conditions).toMatchObject([
      { type: 'logic', conditions: [{ type: 'embed-null', isNull: true }, { type: 'filter' }] },
    ]);
  });

  it.each(['eq.1', 'not.eq.1', 'is.true', 'in.(1)'])(
    'answers directors=%s on an embed with PGRST120',
    (filter) => {
      expect(failure('GET', `/films?select=*,directors(*)&directors=${filter}`)).toMatchObject({
        code: 'PGRST120',
        status: 400,
        message: "Bad operator on the 'directors' embedded resource",
        details: 'Only is null or not is null filters are allowed on embedded resources',
      });
    },
  );

  it('orders by a column of a to-one embed through its relationship', () => {
    const plan = read('/films?select=*,directors(*)&order=directors(last_name).desc.nullslast');
    expect(plan.root.order[0]).toMatchObject({
      column: 'last_name',
      direction: 'desc',
      nulls: 'last',
      relationship: { cardinality: 'm2o' },
      relationTable: tableOf('directors'),
    });
  });

  it('answers a related order on a to-many embed with PGRST118', () => {
    expect(failure('GET', '/directors?select=*,films(*)&order=films(title)')).toMatchObject({
      code: 'PGRST118',
      status: 400,
      message: "A related order on 'films' is not possible",
      details: "'directors' and 'films' do not form a many-to-one or one-to-one relationship",
    });
  });

  it('refuses a related order on a relation the select does not embed (PGRST108)', () => {
    expect(failure('GET', '/films?order=directors(last_name)')).toMatchObject({
      code: 'PGRST108',
      message: "'directors' is not an embedded resource in this request",
    });
  });

  it.each(['count()', 'year.sum()', 'total:year.max()::int', 'directors(count())'])(
    'refuses the aggregate select=%s with PGRST123',
    (select) => {
      expect(failure('GET', `/films?select=${select}`)).toMatchObject({
        code: 'PGRST123',
        status: 400,
        message: 'Use of aggregate functions is not allowed',
      });
    },
  );

  it('flags JSON columns, tsvector columns and output names on columns and filters', () => {
    const plan = read(
      '/films?select=data->a->>b,tags->0,meta->x,t:title::text&tsv=fts.cat&summary=fts.cat',
    );
    expect(plan.root.select).toMatchObject([
      { kind: 'column', column: 'data', isJson: true, outputName: 'b' },
      { kind: 'column', column: 'tags', isJson: false, outputName: 'tags' },
      { kind: 'column', column: 'meta', isJson: true, outputName: 'x' },
      { kind: 'column', column: 'title', cast: 'text', outputName: 't' },
    ]);
    expect(plan.root.conditions).toMatchObject([
      { column: 'tsv', isTsvector: true },
      { column: 'summary', isTsvector: false },
    ]);
  });
});

describe('plan: ranges', () => {
  it.each([
    ['', undefined, 1000, 1000, undefined],
    ['limit=10&offset=5', undefined, 1000, 10, 5],
    ['limit=10&offset=5', '0-9', 1000, 5, 5],
    ['limit=10', '3-5', 1000, 3, 3],
    ['', '10-19', 1000, 10, 10],
    ['', '10-', 1000, 1000, 10],
    ['offset=20', '0-9', 1000, 0, 20],
    ['limit=5000', undefined, 1000, 1000, undefined],
    ['', '0-4999', 100, 100, undefined],
    ['limit=0', undefined, 1000, 0, undefined],
  ])(
    '?%s with Range %s and max rows %d reads limit %d offset %s',
    (query, range, maxRows, limit, offset) => {
      const plan = read(`/films?${query}`, { maxRows, ...(range ? { range } : {}) });
      expect([plan.root.limit, plan.root.offset]).toEqual([limit, offset]);
    },
  );

  it('ignores the Range header on HEAD and reports count and head', () => {
    const plan = planUrl('HEAD', '/films', { range: '0-1', prefer: 'count=exact' }) as ReadPlan;
    expect(plan).toMatchObject({ head: true, count: 'exact', root: { limit: 1000 } });
  });
});

describe('plan: writes', () => {
  it('inserts the keys of the payload, binding the body as one JSON array', () => {
    const plan = write('POST', '/films', { body: '{"title":"Alien","year":1979}' });
    expect(plan).toMatchObject({
      action: 'write',
      kind: 'insert',
      table: tableOf('films'),
      columns: ['title', 'year'],
      payload: '[{"title":"Alien","year":1979}]',
      missingDefault: false,
      conditions: [],
    });
    expect(plan.onConflict).toBeUndefined();
    expect(plan.returning).toBeUndefined();
  });

  it('keeps a bulk array payload as sent when every object has the same keys', () => {
    const body = '[{"title":"a","year":1},{"year":2,"title":"b"}]';
    expect(write('POST', '/films', { body })).toMatchObject({
      columns: ['title', 'year'],
      payload: body,
    });
  });

  it.each([
    ['[{"title":"a"},{"year":1}]', 'PGRST102', 'All object keys must match'],
    ['[{"title":"a"},{"title":"b","year":1}]', 'PGRST102', 'All object keys must match'],
    [
      '{"title":"a","nope":1}',
      'PGRST204',
      "Could not find the 'nope' column of 'films' in the schema cache",
    ],
  ])('refuses the insert payload %s with %s', (body, code, message) => {
    expect(failure('POST', '/films', { body })).toMatchObject({ code, status: 400, message });
  });

  it('writes the columns= list whatever keys the rows have', () => {
    const body = '[{"title":"a","extra":1},{"year":2}]';
    expect(write('POST', '/films?columns=title,year', { body }).columns).toEqual(['title', 'year']);
    expect(failure('POST', '/films?columns=title,nope', { body })).toMatchObject({
      code: 'PGRST204',
      message: "Could not find the 'nope' column of 'films' in the schema cache",
    });
  });

  it.each([
    ['/films', 'merge-duplicates', ['id']],
    ['/films', 'ignore-duplicates', ['id']],
    ['/films?on_conflict=title', 'merge-duplicates', ['title']],
    ['/film_actors', 'merge-duplicates', ['film_id', 'actor_id']],
    ['/logs?on_conflict=message', 'ignore-duplicates', ['message']],
    ['/logs', 'merge-duplicates', undefined],
    ['/films?on_conflict=title', undefined, undefined],
  ])('POST %s with resolution=%s upserts on %j', (url, resolution, columns) => {
    const prefer = resolution ? `resolution=${resolution}` : 'return=minimal';
    const plan = write('POST', url, { body: '{}', prefer });
    expect(plan.onConflict).toEqual(columns && { columns, resolution });
  });

  it('takes column defaults for missing keys with Prefer: missing=default', () => {
    const plan = write('POST', '/films', { body: '{"title":"a"}', prefer: 'missing=default' });
    expect(plan.missingDefault).toBe(true);
  });

  it.each([
    ['PATCH', 'UPDATE'],
    ['DELETE', 'DELETE'],
  ])('refuses an unfiltered %s like pg-safeupdate (400, 21000)', (method, verb) => {
    const error = failure(method, '/films?select=*,directors(*)&directors.id=eq.1', {
      body: '{"title":"a"}',
    });
    expect(error).toMatchObject({
      code: '21000',
      status: 400,
      message: `${verb} requires a WHERE clause`,
      hint: 'Add a filter to the request, for example ?id=eq.1',
    });
  });

  it('updates the payload keys of the filtered rows', () => {
    const plan = write('PATCH', '/films?id=eq.1&or=(year.lt.2000)', { body: '{"title":"b"}' });
    expect(plan).toMatchObject({ kind: 'update', columns: ['title'], payload: '{"title":"b"}' });
    expect(plan.conditions).toMatchObject([
      { type: 'filter', column: 'id' },
      { type: 'logic', operator: 'or' },
    ]);
  });

  it('plans an empty PATCH body as an update of no column', () => {
    expect(write('PATCH', '/films?id=eq.1', { body: '{}' })).toMatchObject({
      kind: 'update',
      columns: [],
    });
  });

  it('refuses an unknown PATCH column with PGRST204', () => {
    expect(failure('PATCH', '/films?id=eq.1', { body: '{"nope":1}' })).toMatchObject({
      code: 'PGRST204',
      message: "Could not find the 'nope' column of 'films' in the schema cache",
    });
  });

  it('deletes the filtered rows', () => {
    const plan = write('DELETE', '/films?id=eq.1');
    expect(plan).toMatchObject({ kind: 'delete', columns: [], payload: '[]' });
    expect(plan.conditions).toHaveLength(1);
  });

  it('reads return=representation back from the written rows with * spelled out', () => {
    const plan = write(
      'PATCH',
      '/films?id=eq.1&select=*,directors(name)&order=title&directors.name=eq.x',
      {
        body: '{"title":"b"}',
        prefer: 'return=representation',
      },
    );
    const returning = plan.returning!;
    expect(returning).toMatchObject({ ref: '"films"', name: 'films', conditions: [] });
    expect(returning.source).toEqual({ kind: 'written', table: tableOf('films') });
    expect(returning.select[0]).toEqual({
      kind: 'star',
      columns: tableOf('films').columns.map((c) => c.name),
    });
    expect(embeds(returning)[0]!.node.conditions).toHaveLength(1);
    expect(returning.order).toMatchObject([{ column: 'title' }]);
    expect(plan.conditions).toHaveLength(1);
  });

  it.each([
    ['/films', ['id']],
    ['/film_actors', ['film_id', 'actor_id']],
    ['/logs', undefined],
  ])('keeps the primary key of %s for Location with return=headers-only', (url, key) => {
    const plan = write('POST', url, { body: '{}', prefer: 'return=headers-only' });
    expect(plan.locationKey).toEqual(key);
    expect(plan.returning).toBeUndefined();
  });

  it('answers an unsupported method on a table with PGRST117', () => {
    expect(failure('TRACE', '/films')).toMatchObject({
      code: 'PGRST117',
      status: 405,
      message: 'Unsupported HTTP method: TRACE',
    });
  });
});

describe('plan: rpc', () => {
  const argsOf = (plan: CallPlan) => plan.args.map((a) => [a.param.name, a.values]);

  it('passes GET arguments from the query string, in parameter order', () => {
    const plan = call('GET', '/rpc/add?b=2&a=1');
    expect(plan).toMatchObject({ action: 'call', readOnly: true, head: false });
    expect(plan.fn.name).toBe('add');
    expect(argsOf(plan)).toEqual([
      ['a', ['1']],
      ['b', ['2']],
    ]);
    expect(plan.root).toBeUndefined();
    expect(plan.payload).toBeUndefined();
  });

  it('passes POST arguments as the JSON body, keyed by columns= when given', () => {
    const body = '{"a":1,"b":2,"c":3}';
    const plan = call('POST', '/rpc/add?columns=a,b', { body });
    expect(plan).toMatchObject({ payload: body, readOnly: true });
    expect(argsOf(plan)).toEqual([
      ['a', undefined],
      ['b', undefined],
    ]);
  });

  it.each([
    ['/rpc/lookup?film_id=1', 'film_id'],
    ['/rpc/lookup?title=x', 'title'],
    ['/rpc/search?term=x', 'term'],
    ['/rpc/search?term=x&max=3', 'term,max'],
  ])('resolves the overload %s by its argument keys', (url, params) => {
    const plan = call('GET', url);
    expect(plan.args.map((a) => a.param.name).join(',')).toBe(params);
    expect(plan.fn.params[0]!.name).toBe(params.split(',')[0]);
  });

  it('collects a repeated GET argument for a variadic parameter', () => {
    expect(argsOf(call('GET', '/rpc/concat_all?parts=a&parts=b&parts=c'))).toEqual([
      ['parts', ['a', 'b', 'c']],
    ]);
  });

  it('leaves filters on a GET call to the result', () => {
    const plan = call(
      'GET',
      '/rpc/films_since?y=2000&title=eq.x&select=title,directors(name)&order=title&limit=5',
    );
    expect(argsOf(plan)).toEqual([['y', ['2000']]]);
    expect(plan.root).toMatchObject({
      ref: '"pgrst_call"',
      name: 'films_since',
      source: { kind: 'call', table: tableOf('films') },
      conditions: [{ column: 'title' }],
      order: [{ column: 'title' }],
      limit: 5,
    });
    expect(embeds(plan.root!)[0]!.relationship.cardinality).toBe('m2o');
  });

  it('shapes a record-returning function without a table behind it', () => {
    expect(call('GET', '/rpc/director_stats').root!.source).toEqual({ kind: 'call' });
  });

  it('hands the whole JSON body to a function with one unnamed json parameter', () => {
    const body = '{"anything":[1,2]}';
    const plan = call('POST', '/rpc/ingest', { body });
    expect(plan.wholeBody).toMatchObject({ name: '', type: 'json' });
    expect(plan).toMatchObject({ payload: body, args: [], readOnly: false });
  });

  it.each([
    ['GET', '/rpc/reset_stats', '', true],
    ['HEAD', '/rpc/reset_stats', '', true],
    ['POST', '/rpc/reset_stats', '', false],
    ['POST', '/rpc/films_since', '{"y":1}', true],
    ['POST', '/rpc/add', '{"a":1,"b":2}', true],
  ])('%s %s %s runs read-only: %s', (method, url, body, readOnly) => {
    expect(call(method, url, { body }).readOnly).toBe(readOnly);
  });

  it.each([
    [{ a: 1, c: 2 }, 'public.add(a, c)', 'public.add with parameters a, c'],
    [{}, 'public.add without parameters', 'public.add without parameters'],
  ])('answers POST /rpc/add %j with PGRST202', (args, signature, searched) => {
    const error = failure('POST', '/rpc/add', { body: JSON.stringify(args) });
    expect(error).toMatchObject({ code: 'PGRST202', status: 404, hint: null });
    expect(error.message).toBe(`Could not find the function ${signature} in the schema cache`);
    expect(error.details).toBe(
      `Searched for the function ${searched} or with a single unnamed json/jsonb parameter, ` +
        'but no matches were found in the schema cache.',
    );
  });

  it('suggests a function with a close name, as strictly as PostgREST (similarity >= 0.75)', () => {
    expect(failure('POST', '/rpc/films_sincee', { body: '{"y":1}' }).hint).toBe(
      'Perhaps you meant to call the function public.films_since',
    );
    expect(failure('POST', '/rpc/ad', { body: '{"a":1,"b":2}' }).hint).toBeNull();
  });

  it('answers an ambiguous overload with PGRST203 (300)', () => {
    expect(failure('GET', '/rpc/pick?x=1')).toMatchObject({
      code: 'PGRST203',
      status: 300,
      message:
        'Could not choose the best candidate function between: public.pick(x => integer), public.pick(x => text)',
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    });
  });

  it.each(['PATCH', 'DELETE', 'PUT'])('answers %s on a function with PGRST101', (method) => {
    expect(failure(method, '/rpc/add')).toMatchObject({
      code: 'PGRST101',
      status: 405,
      message: `Cannot use the ${method} method on RPC`,
    });
  });
});

describe('plan: request size limits', () => {
  const tooLarge = {
    code: 'PGRST100',
    status: 400,
    message: 'The request is too large to be executed',
  };
  const list = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
  const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));

  it('accepts requests at the limits', () => {
    expect(() => read(`/films?id=in.(${list(PLAN_LIMITS.inListValues)})`)).not.toThrow();
    const filters = repeat(PLAN_LIMITS.conditions, (i) => `id=neq.${i}`).join('&');
    expect(() => read(`/films?${filters}`)).not.toThrow();
    const select = repeat(PLAN_LIMITS.embeds, (i) => `d${i}:directors(id)`).join(',');
    expect(() => read(`/films?select=${select}`)).not.toThrow();
  });

  it.each([
    ['an in list', `id=in.(${list(PLAN_LIMITS.inListValues + 1)})`],
    ['an in list inside a logic tree', `or=(id.in.(${list(PLAN_LIMITS.inListValues + 1)}))`],
    ['filters', repeat(PLAN_LIMITS.conditions + 1, (i) => `id=neq.${i}`).join('&')],
    [
      'logic tree conditions',
      `or=(${repeat(PLAN_LIMITS.conditions, (i) => `id.eq.${i}`).join(',')})`,
    ],
    ['embeds', `select=${repeat(PLAN_LIMITS.embeds + 1, (i) => `d${i}:directors(id)`).join(',')}`],
    [
      'nested embeds',
      `select=${repeat(PLAN_LIMITS.embeds / 2 + 1, (i) => `d${i}:directors(films(id))`).join(',')}`,
    ],
  ])('refuses too many %s with a 400', (_what, query) => {
    expect(failure('GET', `/films?${query}`)).toMatchObject(tooLarge);
  });
});
