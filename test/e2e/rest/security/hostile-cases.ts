/**
 * Hand-written cases for fuzz.e2e-spec.ts. INJECTIONS: SQL injection attempts, one for each place
 * an untrusted string can reach SQL: filter values, identifiers (select, order, filters, embeds,
 * casts), JSON keys, headers, on_conflict / columns, body keys, RPC arguments and the path.
 * Writes carry `tx=rollback` and `return=representation`: a working injection shows in the rows
 * returned without destroying the fixture for the next case.
 */
export interface InjectionCase {
  what: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path and query under /rest/v1, as sent (fetch percent-encodes what it must). */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status, or '4xx' where any client error will do (the point is: not a 5xx). */
  status: number | '4xx';
  /** The exact response body, when it shows that nothing was injected. */
  response?: unknown;
}

const ROLLBACK = { prefer: 'tx=rollback, return=representation' };
const JSON_ROLLBACK = { ...ROLLBACK, 'content-type': 'application/json' };
const DROP = 'DROP TABLE films';

// prettier-ignore
export const INJECTIONS: InjectionCase[] = [
  // Values are bound parameters: text that looks like SQL is just text.
  { what: 'value: statement after a number', method: 'GET', path: `/films?id=eq.1;${DROP}`, status: 400 },
  { what: 'value: classic quote break-out', method: 'GET', path: "/films?title=eq.1' OR '1'='1", status: 200, response: [] },
  { what: 'value: closing paren and comment', method: 'GET', path: `/films?title=eq.'); ${DROP}; --`, status: 200, response: [] },
  { what: 'value: in a quoted in-list item', method: 'GET', path: `/films?title=in.("a'); ${DROP}; --",b)`, status: 200, response: [] },
  { what: 'value: in an or= tree', method: 'GET', path: `/films?select=id&or=(title.eq."x'); ${DROP}; --",id.eq.1)`, status: 200, response: [{ id: 1 }] },
  { what: 'value: after a JSON path', method: 'GET', path: '/films?data->>budget=eq.1 OR 1=1', status: 200, response: [] },
  { what: 'value: like pattern', method: 'GET', path: "/films?title=like.%' OR 1=1 --", status: 200, response: [] },
  { what: 'value: regex', method: 'GET', path: "/films?title=match.' OR 1=1", status: 200, response: [] },
  { what: 'value: full-text query', method: 'GET', path: `/docs?body=plfts(english).quick'); ${DROP}; --`, status: 200, response: [] },
  { what: 'value: is. with a statement', method: 'GET', path: `/films?year=is.null;${DROP}`, status: 400 },
  // Identifiers are parsed by the grammar, then quoted, then must exist in the schema cache.
  { what: 'select: statement after a column', method: 'GET', path: `/films?select=id;${DROP.toLowerCase()}`, status: 400 },
  { what: 'select: quoted column name with a statement', method: 'GET', path: `/films?select="id;${DROP}"`, status: 400 },
  { what: 'select: cast with a statement', method: 'GET', path: `/films?select=id::text);${DROP};--`, status: 400 },
  { what: 'select: quoted cast with a statement', method: 'GET', path: `/films?select=id::"text); ${DROP}; --"`, status: 400 },
  { what: 'select: JSON key with quote break-out', method: 'GET', path: `/films?select=x:data->>'x'); ${DROP}; --`, status: 400 },
  { what: 'select: quoted JSON key with a statement', method: 'GET', path: `/films?select=id,x:data->>"x'); ${DROP}; --"&id=eq.1`, status: 200, response: [{ id: 1, x: null }] },
  { what: 'filter: quoted JSON key with a statement', method: 'GET', path: `/films?data->>"x'); ${DROP}; --"=eq.1`, status: 200, response: [] },
  { what: 'filter: quoted column name with a statement', method: 'GET', path: `/films?"title; ${DROP}"=eq.x`, status: 400 },
  { what: 'order: statement after a column', method: 'GET', path: '/films?order=id;delete', status: 400 },
  { what: 'order: quoted column with a statement', method: 'GET', path: '/films?order="id; delete from films"', status: 400 },
  { what: 'embed: hint with a statement', method: 'GET', path: `/films?select=id,directors!"fk; ${DROP}"(id)`, status: 400 },
  { what: 'embed: relation name with a statement', method: 'GET', path: `/films?select=id,"directors; ${DROP}"(id)`, status: 400 },
  { what: 'embed: order with a statement', method: 'GET', path: '/films?select=id,directors(id)&directors.order=id;drop', status: 400 },
  { what: 'path: table name with a statement', method: 'GET', path: `/films;${DROP}`, status: 404 },
  { what: 'path: quoted table name with a statement', method: 'GET', path: `/%22films%22%3B${encodeURIComponent(DROP)}`, status: 404 },
  // Headers.
  { what: 'Accept-Profile with a statement', method: 'GET', path: '/films', headers: { 'accept-profile': `public; ${DROP}` }, status: 406 },
  { what: 'Content-Profile with a statement', method: 'POST', path: '/items', headers: { ...JSON_ROLLBACK, 'content-profile': `public"; ${DROP}; --` }, body: '{"name":"x"}', status: 406 },
  { what: 'Prefer count with a statement', method: 'GET', path: '/films?select=id&id=eq.1', headers: { prefer: `count=exact; ${DROP}` }, status: 200, response: [{ id: 1 }] },
  { what: 'Prefer timezone with a quote', method: 'GET', path: '/films?select=id&id=eq.1', headers: { prefer: `timezone=UTC'; ${DROP}; --` }, status: 200, response: [{ id: 1 }] },
  { what: 'Range with a statement', method: 'GET', path: '/films?select=id&id=eq.1', headers: { range: `0-1; ${DROP}` }, status: 200, response: [{ id: 1 }] },
  // Writes: on_conflict, columns, body keys and values, RPC arguments.
  { what: 'on_conflict with a statement', method: 'POST', path: `/items?on_conflict=name);${DROP};--`, headers: JSON_ROLLBACK, body: '{"name":"x"}', status: 400 },
  { what: 'on_conflict quoted with a statement', method: 'POST', path: `/items?on_conflict="name); ${DROP}; --"`, headers: JSON_ROLLBACK, body: '{"name":"x"}', status: 400 },
  { what: 'columns with a statement', method: 'POST', path: `/items?columns=name);${DROP};--`, headers: JSON_ROLLBACK, body: '{"name":"x"}', status: 400 },
  { what: 'columns quoted with a statement', method: 'POST', path: `/items?columns=name,"qty); ${DROP}; --"`, headers: JSON_ROLLBACK, body: '{"name":"x"}', status: 400 },
  { what: 'body key with a statement', method: 'POST', path: '/items', headers: JSON_ROLLBACK, body: `{"name\\"); ${DROP}; --":"x"}`, status: 400 },
  { what: 'body value with a statement (stored as text)', method: 'POST', path: '/items?select=name', headers: JSON_ROLLBACK, body: `{"name":"x'); ${DROP}; --"}`, status: 201, response: [{ name: `x'); ${DROP}; --` }] },
  { what: 'CSV header with a statement', method: 'POST', path: '/items', headers: { ...ROLLBACK, 'content-type': 'text/csv' }, body: `"name"");${DROP};--"\nx`, status: 400 },
  { what: 'PATCH filter value with a statement', method: 'PATCH', path: `/items?name=eq.x');${DROP};--`, headers: JSON_ROLLBACK, body: '{"qty":1}', status: 200, response: [] },
  { what: 'DELETE filter value that is a tautology', method: 'DELETE', path: "/films?title=eq.' OR ''='", headers: ROLLBACK, status: 200, response: [] },
  { what: 'DELETE numeric filter with OR', method: 'DELETE', path: '/films?id=eq.1 OR 1=1', headers: ROLLBACK, status: 400 },
  { what: 'RPC argument name with a statement', method: 'POST', path: '/rpc/add', headers: JSON_ROLLBACK, body: `{"a":1,"b\\"); ${DROP}; --":2}`, status: 404 },
  { what: 'RPC GET argument value with a statement', method: 'GET', path: `/rpc/add?a=1&b=2);${DROP};--`, status: 400 },
  { what: 'RPC select with a statement', method: 'GET', path: '/rpc/films_since?y=2000&select=title;drop', status: 400 },
  { what: 'RPC JSON argument with a statement', method: 'POST', path: '/rpc/echo_json', headers: JSON_ROLLBACK, body: `{"'); ${DROP}; --": 1}`, status: 200, response: { [`'); ${DROP}; --`]: 1 } },
];

const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/**
 * Inputs that answered 5xx when this suite was written (found by the fuzz and by probing
 * limits), kept as regressions. Each is the client's fault, so a 4xx (or a success).
 */
// prettier-ignore
export const FOUND_5XX: InjectionCase[] = [
  // Nothing to set plus a filter: the filter's values were bound to a statement without them (08P01).
  { what: 'PATCH {} with a filter', method: 'PATCH', path: '/items?id=eq.1', headers: JSON_ROLLBACK, body: '{}', status: 200, response: [] },
  { what: 'PATCH header-only CSV with a filter', method: 'PATCH', path: '/items?id=eq.1', headers: { ...ROLLBACK, 'content-type': 'text/csv' }, body: 'name', status: 200, response: [] },
  { what: 'PATCH empty form with a filter', method: 'PATCH', path: '/items?id=eq.1', headers: { ...ROLLBACK, 'content-type': 'application/x-www-form-urlencoded' }, body: '', status: 200, response: [] },
  // PostgreSQL limits reached by the request's shape (SQLSTATE class 54, mapped to 500).
  { what: 'JSON body nested 20 000 levels (54001)', method: 'POST', path: '/items', headers: JSON_ROLLBACK, body: `{"name":"x","note":${deepJson(20_000)}}`, status: '4xx' },
  { what: 'select of 1 700 columns (54011)', method: 'GET', path: `/films?select=${Array(1700).fill('id').join(',')}`, status: '4xx' },
  // Two rows of one upsert with the same conflict key (21000, mapped to 500).
  { what: 'upsert batch repeating a conflict key', method: 'POST', path: '/items?on_conflict=name', headers: { ...JSON_ROLLBACK, prefer: 'tx=rollback, resolution=merge-duplicates' }, body: '[{"name":"a"},{"name":"a"}]', status: '4xx' },
];
