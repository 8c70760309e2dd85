import type { ReadPlan } from '../plan/types';
import {
  buildCache,
  column,
  fn,
  param,
  planUrl,
  table,
  type UrlOptions,
} from '../testing/fixture-cache';
import { arrayLiteral, buildCountQuery, buildStatement, type Statement } from './sql';

const sql = (method: string, url: string, options?: UrlOptions): Statement =>
  buildStatement(planUrl(method, url, options));
const get = (url: string, options?: UrlOptions) => sql('GET', url, options);

const c = (name: string) => `"public"."films"."${name}"`;

/**
 * Every `zz_...` token of the request is user input: it must reach Postgres as a bound value
 * and never appear in the statement text (the text depends only on the request's shape).
 */
function expectOnlyBound(statement: Statement, request: string): void {
  const tokens = request.match(/zz_[A-Za-z0-9_]*/g) ?? [];
  for (const token of tokens) {
    expect(statement.text).not.toContain(token);
    expect(statement.values.some((v) => typeof v === 'string' && v.includes(token))).toBe(true);
  }
}

describe('buildStatement: filters', () => {
  it.each([
    ['year=eq.zz_v1', `${c('year')} = $1`, ['zz_v1']],
    ['year=neq.zz_v1', `${c('year')} <> $1`, ['zz_v1']],
    ['year=gt.zz_v1', `${c('year')} > $1`, ['zz_v1']],
    ['year=gte.zz_v1', `${c('year')} >= $1`, ['zz_v1']],
    ['year=lt.zz_v1', `${c('year')} < $1`, ['zz_v1']],
    ['year=lte.zz_v1', `${c('year')} <= $1`, ['zz_v1']],
    ['year=eq.', `${c('year')} = $1`, ['']],
    ['title=like.*zz_v1*', `${c('title')} LIKE $1`, ['%zz_v1%']],
    ['title=ilike.zz_v1*x*', `${c('title')} ILIKE $1`, ['zz_v1%x%']],
    ['title=like(any).{zz_v1*,*zz_v2}', `${c('title')} LIKE ANY($1)`, ['{zz_v1%,%zz_v2}']],
    ['title=ilike(all).{zz_v1*,zz_v2*}', `${c('title')} ILIKE ALL($1)`, ['{zz_v1%,zz_v2%}']],
    ['year=eq(any).{zz_v1,zz_v2}', `${c('year')} = ANY($1)`, ['{zz_v1,zz_v2}']],
    ['year=gt(all).{zz_v1,zz_v2}', `${c('year')} > ALL($1)`, ['{zz_v1,zz_v2}']],
    ['title=match.^zz_v1*$', `${c('title')} ~ $1`, ['^zz_v1*$']],
    ['title=imatch.zz_v1', `${c('title')} ~* $1`, ['zz_v1']],
    ['title=imatch(any).{zz_v1,zz_v2}', `${c('title')} ~* ANY($1)`, ['{zz_v1,zz_v2}']],
    ['title=in.(zz_v1,zz_v2)', `${c('title')} = ANY($1)`, ['{"zz_v1","zz_v2"}']],
    [
      'title=in.("zz_v1,\\"q\\"","zz_v2\\\\b")',
      `${c('title')} = ANY($1)`,
      ['{"zz_v1,\\"q\\"","zz_v2\\\\b"}'],
    ],
    ['title=in.()', `${c('title')} = ANY($1)`, ['{}']],
    ['title=is.null', `${c('title')} IS NULL`, []],
    ['title=is.NULL', `${c('title')} IS NULL`, []],
    ['title=is.not_null', `${c('title')} IS NOT NULL`, []],
    ['title=is.true', `${c('title')} IS TRUE`, []],
    ['title=is.false', `${c('title')} IS FALSE`, []],
    ['title=is.unknown', `${c('title')} IS UNKNOWN`, []],
    ['title=isdistinct.zz_v1', `${c('title')} IS DISTINCT FROM $1`, ['zz_v1']],
    ['tags=cs.{zz_v1,zz_v2}', `${c('tags')} @> $1`, ['{zz_v1,zz_v2}']],
    ['tags=cd.{zz_v1}', `${c('tags')} <@ $1`, ['{zz_v1}']],
    ['tags=ov.{zz_v1}', `${c('tags')} && $1`, ['{zz_v1}']],
    ['data=cs.{"zz_v1":1}', `${c('data')} @> $1`, ['{"zz_v1":1}']],
    ['runtime=sl.[1,zz_v1)', `${c('runtime')} << $1`, ['[1,zz_v1)']],
    ['runtime=sr.[1,zz_v1)', `${c('runtime')} >> $1`, ['[1,zz_v1)']],
    ['runtime=nxl.[1,zz_v1)', `${c('runtime')} &> $1`, ['[1,zz_v1)']],
    ['runtime=nxr.[1,zz_v1)', `${c('runtime')} &< $1`, ['[1,zz_v1)']],
    ['runtime=adj.[1,zz_v1)', `${c('runtime')} -|- $1`, ['[1,zz_v1)']],
    ['tsv=fts.zz_v1', `${c('tsv')} @@ to_tsquery($1::text)`, ['zz_v1']],
    ['tsv=plfts.zz_v1', `${c('tsv')} @@ plainto_tsquery($1::text)`, ['zz_v1']],
    ['tsv=phfts.zz_v1', `${c('tsv')} @@ phraseto_tsquery($1::text)`, ['zz_v1']],
    ['tsv=wfts.zz_v1', `${c('tsv')} @@ websearch_to_tsquery($1::text)`, ['zz_v1']],
    [
      'tsv=fts(zz_cfg).zz_v1',
      `${c('tsv')} @@ to_tsquery($1::regconfig, $2::text)`,
      ['zz_cfg', 'zz_v1'],
    ],
    ['summary=fts.zz_v1', `to_tsvector(${c('summary')}) @@ to_tsquery($1::text)`, ['zz_v1']],
    [
      'summary=wfts(zz_cfg).zz_v1 zz_v2',
      `to_tsvector($1::regconfig, ${c('summary')}) @@ websearch_to_tsquery($1::regconfig, $2::text)`,
      ['zz_cfg', 'zz_v1 zz_v2'],
    ],
    ['year=not.eq.zz_v1', `NOT (${c('year')} = $1)`, ['zz_v1']],
    ['title=not.in.(zz_v1)', `NOT (${c('title')} = ANY($1))`, ['{"zz_v1"}']],
    ['title=not.is.null', `NOT (${c('title')} IS NULL)`, []],
    ['title=not.like(any).{zz_v1*}', `NOT (${c('title')} LIKE ANY($1))`, ['{zz_v1%}']],
    ['year=gt.zz_v1&year=lt.zz_v2', `${c('year')} > $1 AND ${c('year')} < $2`, ['zz_v1', 'zz_v2']],
    [
      'or=(year.lt.zz_v1,year.gt.zz_v2)',
      `(${c('year')} < $1 OR ${c('year')} > $2)`,
      ['zz_v1', 'zz_v2'],
    ],
    [
      'and=(year.gte.zz_v1,year.lte.zz_v2)',
      `(${c('year')} >= $1 AND ${c('year')} <= $2)`,
      ['zz_v1', 'zz_v2'],
    ],
    [
      'not.or=(year.eq.zz_v1,title.like.zz_v2*)',
      `NOT (${c('year')} = $1 OR ${c('title')} LIKE $2)`,
      ['zz_v1', 'zz_v2%'],
    ],
    [
      'or=(year.eq.zz_v1,not.and(title.eq.zz_v2,title.is.null))',
      `(${c('year')} = $1 OR NOT (${c('title')} = $2 AND ${c('title')} IS NULL))`,
      ['zz_v1', 'zz_v2'],
    ],
    [
      'or=(tags.cs.{zz_v1,zz_v2},title.in.(zz_v3,"zz_v4,x"))',
      `(${c('tags')} @> $1 OR ${c('title')} = ANY($2))`,
      ['{zz_v1,zz_v2}', '{"zz_v3","zz_v4,x"}'],
    ],
  ])('%s → WHERE %s', (query, fragment, values) => {
    const statement = get(`/films?${query}`);
    expect(statement.text).toContain(`WHERE ${fragment} LIMIT $${values.length + 1}`);
    expect(statement.values).toEqual([...values, 1000]);
    expectOnlyBound(statement, query);
  });

  it('truncates in values at NUL and re-quotes quotes and backslashes', () => {
    expect(arrayLiteral(['a"b', 'c\\d', `e${String.fromCharCode(0)}f`, ''])).toBe(
      '{"a\\"b","c\\\\d","e",""}',
    );
  });
});

describe('buildStatement: select items', () => {
  it.each([
    ['v:data->zz_k1->>zz_k2', `(${c('data')}->$1::text->>$2::text) AS "v"`, ['zz_k1', 'zz_k2']],
    ['v:data->0->>zz_k', `(${c('data')}->$1::integer->>$2::text) AS "v"`, [0, 'zz_k']],
    ['v:meta->>zz_k', `(${c('meta')}->>$1::text) AS "v"`, ['zz_k']],
    ['v:tags->-1', `(to_jsonb(${c('tags')})->$1::integer) AS "v"`, [-1]],
    ['v:runtime->>zz_k', `(to_jsonb(${c('runtime')})->>$1::text) AS "v"`, ['zz_k']],
    ['data->a->>b', `(${c('data')}->$1::text->>$2::text) AS "b"`, ['a', 'b']],
    ['data->1', `(${c('data')}->$1::integer) AS "data"`, [1]],
    ['name:title', `${c('title')} AS "name"`, []],
    ['y:year::text', `CAST(${c('year')} AS text) AS "y"`, []],
    ['title::character varying', `CAST(${c('title')} AS character varying) AS "title"`, []],
    ['v:data->>zz_k::int', `CAST((${c('data')}->>$1::text) AS int) AS "v"`, ['zz_k']],
    ['*,t:title', `"public"."films".*, ${c('title')} AS "t"`, []],
  ])('select=%s → %s', (select, fragment, values) => {
    const statement = get(`/films?select=${select}`);
    expect(statement.text).toContain(`SELECT ${fragment} FROM "public"."films" LIMIT`);
    expect(statement.values).toEqual([...values, 1000]);
    expectOnlyBound(statement, select);
  });

  it.each([
    ['data->>zz_k=eq.zz_v', `(${c('data')}->>$1::text) = $2`, ['zz_k', 'zz_v']],
    ['data->zz_k->0=gt.zz_v', `(${c('data')}->$1::text->$2::integer) > $3`, ['zz_k', 0, 'zz_v']],
    ['title->>zz_k=eq.zz_v', `(to_jsonb(${c('title')})->>$1::text) = $2`, ['zz_k', 'zz_v']],
  ])('filters through the JSON path %s', (query, fragment, values) => {
    const statement = get(`/films?${query}`);
    expect(statement.text).toContain(`WHERE ${fragment} LIMIT`);
    expect(statement.values).toEqual([...values, 1000]);
    expectOnlyBound(statement, query);
  });
});

describe('buildStatement: order and range', () => {
  it.each([
    [
      'year.desc.nullslast,title.asc.nullsfirst,id',
      `${c('year')} DESC NULLS LAST, ${c('title')} ASC NULLS FIRST, ${c('id')}`,
    ],
    ['year.nullsfirst', `${c('year')} NULLS FIRST`],
    ['data->>zz_k.desc', `(${c('data')}->>$1::text) DESC`],
  ])('order=%s → ORDER BY %s', (order, fragment) => {
    const statement = get(`/films?order=${order}`);
    expect(statement.text).toContain(`ORDER BY ${fragment} LIMIT`);
    expectOnlyBound(statement, order);
  });

  it('orders by a to-one embed column through a correlated subquery', () => {
    const { text } = get('/films?select=*,directors(*)&order=directors(last_name).desc');
    expect(text).toMatch(
      /ORDER BY \(SELECT "(pgrst_order_\d+)"\."last_name" FROM "public"\."directors" AS "\1" WHERE "\1"\."id" = "public"\."films"\."director_id" LIMIT 1\) DESC LIMIT \$1\)/,
    );
  });

  it.each([
    ['limit=7&offset=3', 'LIMIT $1 OFFSET $2', [7, 3]],
    ['limit=7&offset=0', 'LIMIT $1)', [7]],
    ['offset=3', 'LIMIT $1 OFFSET $2', [1000, 3]],
  ])('binds %s as parameters', (query, fragment, values) => {
    const statement = get(`/films?${query}`);
    expect(statement.text).toContain(fragment);
    expect(statement.values).toEqual(values);
  });
});

describe('buildStatement: embeds', () => {
  const directorsLateral =
    'LEFT JOIN LATERAL (SELECT row_to_json("pgrst_row_1") AS "pgrst_j" FROM (SELECT "directors_1"."name" AS "name" ' +
    'FROM "public"."directors" AS "directors_1" WHERE "directors_1"."id" = "public"."films"."director_id") AS "pgrst_row_1") ' +
    'AS "directors_1_lat" ON TRUE';

  it('joins a many-to-one embed laterally as one object', () => {
    const { text } = get('/films?select=title,directors(name)');
    expect(text).toContain(
      `SELECT ${c('title')} AS "title", "directors_1_lat"."pgrst_j" AS "directors" FROM "public"."films" ${directorsLateral} LIMIT $1`,
    );
  });

  it('aggregates a one-to-many embed into an array that defaults to []', () => {
    const { text, values } = get('/films?select=title,reviews(body)');
    expect(text).toContain('COALESCE("reviews_1_lat"."pgrst_j", \'[]\') AS "reviews"');
    expect(text).toContain(
      'LEFT JOIN LATERAL (SELECT json_agg("pgrst_row_1") AS "pgrst_j" FROM (SELECT "reviews_1"."body" AS "body" ' +
        'FROM "public"."reviews" AS "reviews_1" WHERE "reviews_1"."film_id" = "public"."films"."id" LIMIT $1) ' +
        'AS "pgrst_row_1") AS "reviews_1_lat" ON TRUE',
    );
    expect(values).toEqual([1000, 1000]);
  });

  it('goes through the junction table for many-to-many', () => {
    const { text } = get('/films?select=actors(name)');
    expect(text).toMatch(
      /FROM "public"\."actors" AS "actors_1" INNER JOIN "public"\."film_actors" AS "(pgrst_junction_\d+)" ON "\1"\."actor_id" = "actors_1"\."id" WHERE "\1"\."film_id" = "public"\."films"\."id" LIMIT \$1/,
    );
  });

  it('puts embed filters, order and range inside the lateral subquery', () => {
    const query =
      'select=title,reviews(body)&reviews.stars=gte.zz_v&reviews.order=stars.desc&reviews.limit=2&reviews.offset=1';
    const statement = get(`/films?${query}`);
    expect(statement.text).toContain(
      'WHERE "reviews_1"."film_id" = "public"."films"."id" AND "reviews_1"."stars" >= $1 ORDER BY "reviews_1"."stars" DESC LIMIT $2 OFFSET $3',
    );
    expect(statement.values).toEqual(['zz_v', 2, 1, 1000]);
    expectOnlyBound(statement, query);
  });

  it.each([
    ['reviews!inner(body)', 'INNER', '"reviews_1_lat" ON "reviews_1_lat"."pgrst_j" IS NOT NULL'],
    ['directors!inner(name)', 'INNER', '"directors_1_lat" ON TRUE'],
    ['reviews!left(body)', 'LEFT', '"reviews_1_lat" ON TRUE'],
  ])('joins %s with %s JOIN LATERAL ... AS %s', (item, join, on) => {
    const { text } = get(`/films?select=title,${item}`);
    expect(text).toContain(`"public"."films" ${join} JOIN LATERAL (SELECT`);
    expect(text).toContain(`AS ${on} LIMIT $`);
  });

  it('leaves a hidden embed out of the output but still joins and filters it', () => {
    const query = 'select=title,directors!inner()&directors.name=eq.zz_v';
    const statement = get(`/films?${query}`);
    expect(statement.text).toContain(
      `SELECT ${c('title')} AS "title" FROM "public"."films" INNER JOIN LATERAL`,
    );
    expect(statement.text).not.toContain('AS "directors"');
    expect(statement.text).toContain('AND "directors_1"."name" = $1)');
    expectOnlyBound(statement, query);
  });

  it.each([
    ['directors=is.null', 'NOT ("directors_1_lat"."pgrst_j" IS NOT NULL)'],
    ['directors=not.is.null', '"directors_1_lat"."pgrst_j" IS NOT NULL'],
    [
      'or=(directors.is.null,year.eq.1)',
      `(NOT ("directors_1_lat"."pgrst_j" IS NOT NULL) OR ${c('year')} = $1)`,
    ],
  ])('filters on embed presence with %s', (filter, where) => {
    expect(get(`/films?select=*,directors(*)&${filter}`).text).toContain(`WHERE ${where} LIMIT`);
  });

  it('lifts the columns of a to-one spread into the parent', () => {
    const { text } = get(
      '/films?select=title,...directors(name,ln:last_name)&directors=not.is.null',
    );
    expect(text).toContain(
      '"directors_1_lat"."name" AS "name", "directors_1_lat"."ln" AS "ln" FROM',
    );
    expect(text).toContain(
      'SELECT true AS "pgrst_found", "directors_1"."name" AS "name", "directors_1"."last_name" AS "ln" FROM "public"."directors"',
    );
    expect(text).toContain('WHERE "directors_1_lat"."pgrst_found" IS NOT NULL');
  });

  it('turns each column of a to-many spread into an array', () => {
    const { text } = get('/films?select=title,...reviews(stars)');
    expect(text).toContain('COALESCE("reviews_1_lat"."stars", \'[]\') AS "stars"');
    expect(text).toMatch(
      /SELECT bool_or\(true\) AS "pgrst_found", json_agg\("(pgrst_row_\d+)"\."stars"\) AS "stars" FROM \(SELECT "reviews_1"\."stars" AS "stars" .* LIMIT \$1\) AS "\1"/,
    );
  });

  it('nests laterals and correlates each level with its parent alias', () => {
    const { text } = get('/directors?select=films(title,reviews(body))');
    expect(text).toContain('WHERE "films_1"."director_id" = "public"."directors"."id"');
    expect(text).toContain('WHERE "reviews_1"."film_id" = "films_1"."id"');
  });
});

describe('buildStatement: counts and media', () => {
  it('adds no count without Prefer: count', () => {
    const { text } = get('/films?year=gt.1');
    expect(text).toContain('NULL::bigint AS total_result_set');
    expect(text).not.toContain('pgrst_source_count');
  });

  it('counts exactly with the same filters and no range', () => {
    const statement = get('/films?year=gt.zz_v&limit=5&offset=2', { prefer: 'count=exact' });
    expect(statement.text).toContain(
      `, pgrst_source_count AS (SELECT 1 FROM "public"."films" WHERE ${c('year')} > $4)`,
    );
    expect(statement.text).toContain(
      '(SELECT pg_catalog.count(*) FROM pgrst_source_count) AS total_result_set',
    );
    expect(statement.values).toEqual(['zz_v', 5, 2, 'zz_v']);
  });

  it('counts through the embeds that filter rows only', () => {
    const { text } = get('/films?select=*,reviews!inner(*),directors(*)', {
      prefer: 'count=exact',
    });
    const count = text.slice(text.indexOf('pgrst_source_count AS'));
    expect(count).toContain('INNER JOIN LATERAL');
    expect(count).not.toContain('"directors_1_lat"');
  });

  it('caps an estimated count at max rows + 1', () => {
    const { text, values } = get('/films', { prefer: 'count=estimated', maxRows: 50 });
    expect(text).toContain('pgrst_source_count AS (SELECT 1 FROM "public"."films" LIMIT $2)');
    expect(values).toEqual([50, 51]);
  });

  it('builds the count query alone for count=planned', () => {
    const plan = planUrl('GET', '/films?year=gt.zz_v', { prefer: 'count=planned' }) as ReadPlan;
    expect(buildStatement(plan).text).not.toContain('pgrst_source_count');
    expect(buildCountQuery(plan)).toEqual({
      text: `SELECT 1 FROM "public"."films" WHERE ${c('year')} > $1`,
      values: ['zz_v'],
    });
  });

  it.each([
    [undefined, 'GET', "coalesce(json_agg(_postgrest_t), '[]')::text AS body"],
    [
      'application/vnd.pgrst.object+json',
      'GET',
      "coalesce((json_agg(_postgrest_t)->0)::text, 'null') AS body",
    ],
    [
      'application/vnd.pgrst.object+json;nulls=stripped',
      'GET',
      "coalesce((json_agg(json_strip_nulls(row_to_json(_postgrest_t)))->0)::text, 'null') AS body",
    ],
    [
      'application/vnd.pgrst.array+json;nulls=stripped',
      'GET',
      "coalesce(json_agg(json_strip_nulls(row_to_json(_postgrest_t))), '[]')::text AS body",
    ],
    [
      'text/csv',
      'GET',
      'string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10))',
    ],
    [
      'text/csv',
      'GET',
      "(SELECT string_agg(pgrst_k, ',') FROM json_object_keys(json_agg(_postgrest_t)->0) AS pgrst_k)",
    ],
    [undefined, 'HEAD', 'NULL::text AS body'],
    ['text/csv', 'HEAD', 'NULL::text AS body'],
  ])('renders Accept %s on %s with %s', (accept, method, body) => {
    const { text } = sql(method, '/films', accept ? { accept } : {});
    expect(text).toContain(body);
    expect(text).toContain('pg_catalog.count(_postgrest_t) AS page_total');
    expect(text).toContain(
      "nullif(current_setting('response.headers', true), '') AS response_headers",
    );
  });
});

describe('buildStatement: writes', () => {
  const films = '"public"."films"';

  it('inserts through json_populate_recordset with the whole payload as one parameter', () => {
    const body = '[{"title":"zz_t1","year":1},{"title":"zz_t2","year":2}]';
    const statement = sql('POST', '/films', { body });
    expect(statement.text).toContain(
      `WITH pgrst_source AS (INSERT INTO ${films} ("title", "year") SELECT pgrst_body."title", pgrst_body."year" ` +
        `FROM json_populate_recordset(NULL::${films}, $1::json) AS pgrst_body RETURNING ${films}.*)`,
    );
    expect(statement.text).toContain("''::text AS body");
    expect(statement.text).toContain('NULL::bigint AS response_inserted');
    expect(statement.values).toEqual([body]);
    expectOnlyBound(statement, body);
  });

  it.each([
    [
      'resolution=merge-duplicates',
      '',
      'ON CONFLICT ("id") DO UPDATE SET "title" = EXCLUDED."title", "year" = EXCLUDED."year"',
    ],
    ['resolution=ignore-duplicates', '', 'ON CONFLICT ("id") DO NOTHING'],
    [
      'resolution=merge-duplicates',
      '?on_conflict=title,year',
      'ON CONFLICT ("title", "year") DO UPDATE SET',
    ],
  ])('upserts with %s%s: %s', (prefer, query, conflict) => {
    const { text } = sql('POST', `/films${query}`, { body: '{"title":"a","year":1}', prefer });
    expect(text).toContain(`) AS pgrst_body ${conflict}`);
  });

  it('flags rows an upsert inserted so the response can tell 201 from 200', () => {
    const { text } = sql('POST', '/films', {
      body: '{"title":"a"}',
      prefer: 'resolution=merge-duplicates',
    });
    expect(text).toContain(`RETURNING ${films}.*, (xmax = 0) AS "pgrst_inserted")`);
    expect(text).toContain(
      '(SELECT pg_catalog.count(*) FROM pgrst_source WHERE "pgrst_inserted") AS response_inserted',
    );
    expect(
      sql('POST', '/films', { body: '{"title":"a"}', prefer: 'resolution=ignore-duplicates' }).text,
    ).not.toContain('xmax');
  });

  it('falls back to each column default for missing keys with Prefer: missing=default', () => {
    const body = '[{"title":"zz_t"}]';
    const statement = sql('POST', '/films?columns=id,title,rating,created_at', {
      body,
      prefer: 'missing=default',
    });
    const when = (n: number, col: string, fallback: string) =>
      `CASE WHEN pgrst_elem.j::jsonb ? $${n}::text THEN pgrst_body."${col}" ELSE ${fallback} END`;
    expect(statement.text).toContain(
      `INSERT INTO ${films} ("id", "title", "rating", "created_at") SELECT ` +
        [
          when(3, 'id', 'nextval(pg_get_serial_sequence($1::text, $2::text))'),
          when(4, 'title', 'NULL'),
          when(5, 'rating', '0'),
          when(6, 'created_at', 'now()'),
        ].join(', ') +
        ` FROM json_array_elements($7::json) AS pgrst_elem(j), LATERAL json_populate_record(NULL::${films}, pgrst_elem.j) AS pgrst_body`,
    );
    expect(statement.values).toEqual([films, 'id', 'id', 'title', 'rating', 'created_at', body]);
  });

  it('updates from json_populate_record with the filters as WHERE', () => {
    const body = '{"title":"zz_t","year":2}';
    const statement = sql('PATCH', '/films?id=eq.zz_id', { body });
    expect(statement.text).toContain(
      `UPDATE ${films} SET "title" = pgrst_body."title", "year" = pgrst_body."year" ` +
        `FROM json_populate_record(NULL::${films}, $2::json) AS pgrst_body WHERE ${c('id')} = $1 RETURNING ${films}.*`,
    );
    expect(statement.values).toEqual(['zz_id', body]);
    expectOnlyBound(statement, body + 'zz_id');
  });

  it('turns an empty PATCH into a statement that touches nothing, its filters still bound', () => {
    const { text, values } = sql('PATCH', '/films?id=eq.1', { body: '{}' });
    expect(text).toContain(
      `WITH pgrst_source AS (SELECT ${films}.* FROM ${films} WHERE false AND ${films}."id" = $1)`,
    );
    expect(values).toEqual(['1']);
    expect(text).not.toContain('UPDATE');
    expect(text).not.toContain('RETURNING');
  });

  it('deletes the filtered rows', () => {
    const statement = sql('DELETE', '/films?id=eq.zz_id&or=(year.lt.zz_y)');
    expect(statement.text).toContain(
      `WITH pgrst_source AS (DELETE FROM ${films} WHERE ${c('id')} = $1 AND (${c('year')} < $2) RETURNING ${films}.*)`,
    );
    expectOnlyBound(statement, 'zz_id zz_y');
  });

  it('reads return=representation from the written rows, embeds and order included', () => {
    const { text } = sql('POST', '/films?select=*,directors(name)&order=title', {
      body: '{"title":"a"}',
      prefer: 'return=representation',
    });
    expect(text).toContain('FROM (SELECT "films"."id", "films"."title", "films"."year", ');
    expect(text).toContain('FROM pgrst_source AS "films" LEFT JOIN LATERAL');
    expect(text).toContain('WHERE "directors_1"."id" = "films"."director_id"');
    expect(text).toContain('ORDER BY "films"."title") _postgrest_t');
    expect(text).toContain("coalesce(json_agg(_postgrest_t), '[]')::text AS body");
  });

  it('selects only the primary key for Location with return=headers-only', () => {
    const { text } = sql('POST', '/film_actors', {
      body: '{"film_id":1,"actor_id":2}',
      prefer: 'return=headers-only',
    });
    expect(text).toContain(
      'FROM (SELECT "film_actors"."film_id", "film_actors"."actor_id" FROM pgrst_source AS "film_actors") _postgrest_t',
    );
  });
});

describe('buildStatement: rpc', () => {
  const scalarBody = "coalesce((json_agg(_postgrest_t.pgrst_scalar)->0)::text, 'null') AS body";

  it('calls with POST arguments read by json_to_record with the parameter types', () => {
    const body = '{"a":"zz_a","b":2}';
    const statement = sql('POST', '/rpc/add', { body });
    expect(statement.text).toContain(
      'WITH pgrst_source AS (SELECT "public"."add"("a" := pgrst_args."a", "b" := pgrst_args."b") AS pgrst_scalar ' +
        'FROM json_to_record($1::json) AS pgrst_args("a" integer, "b" integer))',
    );
    expect(statement.text).toContain(scalarBody);
    expect(statement.values).toEqual([body]);
    expectOnlyBound(statement, body);
  });

  it('casts GET arguments to the parameter types', () => {
    const statement = sql('GET', '/rpc/add?a=zz_a&b=zz_b');
    expect(statement.text).toContain(
      '"public"."add"("a" := $1::integer, "b" := $2::integer) AS pgrst_scalar',
    );
    expect(statement.values).toEqual(['zz_a', 'zz_b']);
    expectOnlyBound(statement, 'zz_a zz_b');
  });

  it.each([
    [
      'GET',
      '/rpc/concat_all?parts=zz_a&parts=zz_b,c',
      undefined,
      '"public"."concat_all"(VARIADIC "parts" := $1::text[])',
      ['{"zz_a","zz_b,c"}'],
    ],
    [
      'POST',
      '/rpc/concat_all',
      '{"parts":["zz_a"]}',
      '"public"."concat_all"(VARIADIC "parts" := pgrst_args."parts")',
      ['{"parts":["zz_a"]}'],
    ],
  ])('passes a variadic parameter on %s %s', (method, url, body, callSql, values) => {
    const statement = sql(method, url, body ? { body } : {});
    expect(statement.text).toContain(callSql);
    expect(statement.values).toEqual(values);
    expectOnlyBound(statement, url + (body ?? ''));
  });

  it('hands the whole body to a single unnamed json parameter', () => {
    const body = '{"zz_k":[1]}';
    const statement = sql('POST', '/rpc/ingest', { body });
    expect(statement.text).toContain('SELECT "public"."ingest"($1::json) AS pgrst_scalar)');
    expect(statement.values).toEqual([body]);
  });

  it.each([
    ['POST', '/rpc/reset_stats', '"public"."reset_stats"() AS pgrst_scalar)', scalarBody],
    [
      'GET',
      '/rpc/search?term=x',
      '"public"."search"("term" := $1::text)',
      "coalesce(json_agg(_postgrest_t.pgrst_scalar), '[]')::text AS body",
    ],
    ['HEAD', '/rpc/search?term=x', '"public"."search"("term" := $1::text)', 'NULL::text AS body'],
  ])('%s %s returns a scalar result', (method, url, callSql, body) => {
    const { text } = sql(method, url, method === 'POST' ? { body: '' } : {});
    expect(text).toContain(callSql);
    expect(text).toContain(body);
  });

  it('reads a set of rows like a table, filters and embeds included', () => {
    const statement = sql(
      'GET',
      '/rpc/films_since?y=zz_y&title=eq.zz_t&select=title,directors(name)&order=title',
      {
        prefer: 'count=exact',
      },
    );
    const { text } = statement;
    expect(text).toContain(
      'FROM "public"."films_since"("y" := $1::integer) AS "pgrst_call" LEFT JOIN LATERAL',
    );
    expect(text).toContain('WHERE "directors_1"."id" = "pgrst_call"."director_id"');
    expect(text).toContain(
      'WHERE "pgrst_call"."title" = $2 ORDER BY "pgrst_call"."title" LIMIT $3)',
    );
    expect(text).toContain(
      'pgrst_source_count AS (SELECT 1 FROM "public"."films_since"("y" := $1::integer) AS "pgrst_call" WHERE "pgrst_call"."title" = $4)',
    );
    expect(text).toContain("coalesce(json_agg(_postgrest_t), '[]')::text AS body");
    expectOnlyBound(statement, 'zz_y zz_t');
  });

  it('reads POST arguments laterally before calling a set-returning function', () => {
    const { text } = sql('POST', '/rpc/films_since', { body: '{"y":1}' });
    expect(text).toContain(
      'FROM json_to_record($1::json) AS pgrst_args("y" integer), LATERAL "public"."films_since"("y" := pgrst_args."y") AS "pgrst_call"',
    );
  });

  it('returns one object for a function returning a single row', () => {
    const { text } = sql('GET', '/rpc/film_by_id?film_id=1');
    expect(text).toContain("coalesce((json_agg(_postgrest_t)->0)::text, 'null') AS body");
  });
});

describe('buildStatement: hostile identifiers', () => {
  const weird = table('we"ird; --', [
    column('id', 'integer', 'int4'),
    column('co"l; --', 'text', 'text'),
  ]);
  const child = table('child"; drop', [
    column('id', 'integer', 'int4'),
    column('p"id', 'integer', 'int4'),
  ]);
  const cache = buildCache(
    [weird, child],
    [
      {
        name: 'fk"x',
        table: 'child"; drop',
        columns: ['p"id'],
        target: 'we"ird; --',
        targetColumns: ['id'],
      },
    ],
    [
      fn(
        'f"; drop',
        [param('a"b', 'text')],
        { kind: 'scalar', setOf: false, type: 'text' },
        'volatile',
      ),
    ],
  );
  const enc = encodeURIComponent;

  it('doubles the quotes of table, column, alias and relationship names', () => {
    const select = enc('"co\\"l; --","x\\"y":id,"child\\"; drop"(*)');
    const filter = `${enc('"co\\"l; --"')}=eq.zz_v`;
    const order = `order=${enc('"co\\"l; --"')}.desc`;
    const { text, values } = get(`/${enc('we"ird; --')}?select=${select}&${filter}&${order}`, {
      cache,
    });
    const t = '"public"."we""ird; --"';
    expect(text).toContain(`SELECT ${t}."co""l; --" AS "co""l; --", ${t}."id" AS "x""y", `);
    expect(text).toContain('FROM "public"."child""; drop" AS "child""; drop_1"');
    expect(text).toContain(`WHERE "child""; drop_1"."p""id" = ${t}."id"`);
    expect(text).toContain(`WHERE ${t}."co""l; --" = $2 ORDER BY ${t}."co""l; --" DESC`);
    expect(text.replace(/""/g, '')).not.toMatch(/we"ird|co"l|p"id|child"; drop/);
    expect(values).toContain('zz_v');
  });

  it('quotes hostile names in writes and calls', () => {
    const insert = sql('POST', `/${enc('we"ird; --')}`, { body: '{"co\\"l; --":"x"}', cache }).text;
    expect(insert).toContain(
      'INSERT INTO "public"."we""ird; --" ("co""l; --") SELECT pgrst_body."co""l; --"',
    );
    const rpc = sql('POST', `/rpc/${enc('f"; drop')}`, { body: '{"a\\"b":"x"}', cache }).text;
    expect(rpc).toContain('"public"."f""; drop"("a""b" := pgrst_args."a""b")');
    expect(rpc).toContain('AS pgrst_args("a""b" text)');
  });
});
