/**
 * The words fuzz-generator.ts builds requests from: the fixture's tables as typed columns,
 * well-formed filters per type, and the hostile fragments and header values mixed in.
 */
export type ColumnType = 'int' | 'num' | 'text' | 'array' | 'json' | 'range' | 'ts' | 'tsv';

export interface TableShape {
  pk: string[];
  columns: Record<string, ColumnType>;
  embeds: string[];
}

/** The fixture's tables (test/e2e/rest/fixture.ts). */
// prettier-ignore
export const TABLES: Record<string, TableShape> = {
  films: {
    pk: ['id'],
    columns: {
      id: 'int', director_id: 'int', title: 'text', year: 'int', rating: 'num', tags: 'array',
      data: 'json', runtime: 'range', created_at: 'ts',
    },
    embeds: ['directors', 'actors', 'film_actors', 'reviews'],
  },
  directors: { pk: ['id'], columns: { id: 'int', first_name: 'text', last_name: 'text' }, embeds: ['films'] },
  actors: { pk: ['id'], columns: { id: 'int', name: 'text' }, embeds: ['films', 'film_actors'] },
  film_actors: {
    pk: ['film_id', 'actor_id'],
    columns: { film_id: 'int', actor_id: 'int', character: 'text' },
    embeds: ['films', 'actors'],
  },
  reviews: { pk: ['id'], columns: { id: 'int', film_id: 'int', stars: 'int', body: 'text' }, embeds: ['films'] },
  items: { pk: ['id'], columns: { id: 'int', name: 'text', qty: 'int', note: 'text' }, embeds: [] },
  docs: { pk: ['id'], columns: { id: 'int', body: 'text', tsv: 'tsv' }, embeds: [] },
};

/** To-one relationships, the only ones a spread (`...rel(...)`) accepts. */
export const TO_ONE: Record<string, readonly string[]> = {
  films: ['directors'],
  film_actors: ['films', 'actors'],
  reviews: ['films'],
};

export const FUNCTIONS = ['add', 'films_since', 'film_titles', 'whoami', 'echo_json', 'touch_item'];
// prettier-ignore
export const HOSTILE_PATHS = ['/nope', '/films;drop table films', '/%zz', '/rpc/', '/a/b/c', '/films%00', '/'];

/** Filters that suit each column type: the well-formed half of the grammar. */
// prettier-ignore
export const TYPED_FILTERS: Record<ColumnType, readonly string[]> = {
  int: ['eq.1', 'neq.2', 'gt.1', 'gte.3', 'lt.5', 'lte.4', 'in.(1,2,3)', 'is.null', 'isdistinct.2', 'eq(any).{1,3}', 'not.in.(4,5)'],
  num: ['gt.7', 'lt.8.2', 'eq.7.7', 'is.not_null', 'not.is.null', 'in.(8.5,6.4)'],
  text: [
    'eq.Alien', 'neq.Alien', 'like.*a*', 'ilike.*RUN*', 'match.^[A-M]', 'imatch.r$', 'in.("Alien","Blade Runner")',
    'is.null', 'fts(english).quick', 'like(any).{A*,*n}', 'not.ilike.*x*',
  ],
  array: ['cs.{scifi}', 'cd.{scifi,drama,noir,horror}', 'ov.{drama,noir}', 'eq.{}', 'is.null', 'not.cs.{drama}'],
  json: ['is.null', 'cs.{"budget":11}', 'not.is.null'],
  range: ['ov.[110,111)', 'sl.[200,300)', 'sr.[0,100)', 'adj.[100,110)', 'nxr.[0,121)', 'nxl.[100,200)', 'eq.[110,120)'],
  ts: ['gt.2000-01-01', 'lt.2100-01-01T00:00:00Z', 'is.not_null'],
  tsv: ['fts.quick', 'plfts.quick fox', 'phfts.quick brown', 'wfts.quick or fox', 'fts(simple).dog'],
};
export const JSON_FIELDS = ['data->>budget', 'data->budget', 'data->crew->>dp', 'data->crew'];
export const JSON_FILTERS = ['eq.11', 'gt.5', 'is.null', 'in.(4,7)', 'eq.Derek', 'like.D*'];
// prettier-ignore
export const TYPED_CASTS: Record<ColumnType, readonly string[]> = {
  int: ['text', 'int8', 'numeric', 'float8'], num: ['text', 'int', 'float8'],
  text: ['text', 'varchar', 'bpchar'], array: ['text', 'json'], json: ['text', 'jsonb'],
  range: ['text'], ts: ['text', 'date'], tsv: ['text'],
};
export const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'];
export const RANGE_OPS = ['cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];
export const FTS = ['fts', 'plfts', 'phfts', 'wfts'];

/**
 * Quotes, comments, statement breaks, NUL and bad percent-escapes, RTL marks and emoji
 * (incl. a ZWJ sequence and an astral character), long tokens, huge and odd numbers, 100
 * nested parentheses, SQL and grammar keywords.
 */
// prettier-ignore
export const HOSTILE: readonly string[] = [
  "'", '"', ';', '--', '/*', '*/', '/* x */', '%00', '%zz', '%', '%%', '%2', '\\', '\\"',
  '\u202e', '\u200f', 'مرحبا', 'שלום', '😀', '👩‍👩‍👧', '𝕏', '\u0000', '\t', ' ', '+', '&', '=',
  ',', '.', ':', '::', '->', '->>', '!inner', '*', '()', '{', '}', '[', ']', '{}', '[]',
  '99999999999999999999', '-99999999999999999999', '-1', '0', '1e309', 'NaN', 'Infinity', '-0',
  '0x10', '1.5', '('.repeat(100) + ')'.repeat(100), '(((', ')))', 'DROP TABLE films',
  '; DROP TABLE films; --', "' OR '1'='1", '" OR ""="', "'); DROP TABLE films; --", '$1', '$$',
  "E'\\x41'", 'null', 'true', 'not', 'or', 'and', 'in', 'is', 'select', 'pg_sleep(10)',
  'current_user', 'x'.repeat(3000), 'é'.repeat(500), '%E2%80%AE', '%C0%AF', '%FF%FE', '%ZZ%00%',
];

// prettier-ignore
export const PREFER = [
  'return=minimal', 'return=representation', 'return=headers-only', 'count=exact', 'count=planned',
  'count=estimated', 'resolution=merge-duplicates', 'resolution=ignore-duplicates',
  'missing=default', 'missing=null', 'handling=strict', 'handling=lenient', 'tx=commit',
  'max-affected=1', 'timezone=America/Sao_Paulo',
];
// prettier-ignore
export const HOSTILE_PREFER = [
  'max-affected=99999999999999999999', "timezone=UTC'; drop table films; --", 'params=single-object',
  'count=exact; drop table films', 'return=', '=', ',,,',
];
// prettier-ignore
export const ACCEPT = [
  'application/json', 'application/vnd.pgrst.object+json', 'text/csv', '*/*',
  'application/vnd.pgrst.array+json;nulls=stripped', 'application/json, text/csv;q=0.5',
];
// prettier-ignore
export const HOSTILE_ACCEPT = [
  'application/vnd.pgrst.object', 'application/geo+json', 'application/vnd.pgrst.plan+json',
  'text/plain', 'application/octet-stream', 'application/openapi+json', 'application/json;q=abc',
  'text/*;q=0.5, application/json;q=0.1', 'application/vnd.pgrst.object+json;nulls=stripped',
];
// prettier-ignore
export const CONTENT_TYPES = ['application/json', 'application/json', 'text/csv', 'application/x-www-form-urlencoded'];
// prettier-ignore
export const HOSTILE_CONTENT_TYPES = [
  'text/plain', 'application/octet-stream', 'application/vnd.pgrst.object+json', 'multipart/form-data',
  'application/json; charset=utf-16', 'application/json; charset=latin1', '*/*',
  'application/json; boundary="', 'application/json;;;',
];
// prettier-ignore
export const PROFILES = ['auth', 'storage', '_platform', 'pg_catalog', 'information_schema', '', 'public; drop table films'];
// prettier-ignore
export const RANGES = ['0-1', '1-3', '0-', '2-2'];
// prettier-ignore
export const HOSTILE_RANGES = ['1-0', '-1', '5-99999999999999999999', 'items=0-1', 'bytes=0-1'];
