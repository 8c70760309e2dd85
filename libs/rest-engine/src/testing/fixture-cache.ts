/**
 * A hand-built schema cache for the plan/build unit tests, plus helpers that turn a URL into a
 * plan the way the engine does (parse → plan), so specs read like the requests they describe.
 * Relationships are derived from foreign keys with the same rules as schema/load.ts.
 */
import { decodeQueryString, parseRequest } from '../parse';
import type { ParsedRequest } from '../parse/ast';
import { plan, type PlanInput } from '../plan/plan';
import type { RawBody } from '../plan/payload';
import type { Plan } from '../plan/types';
import {
  qualifiedKey,
  type Column,
  type ColumnPair,
  type FunctionDef,
  type FunctionParam,
  type FunctionReturn,
  type QualifiedName,
  type Relationship,
  type SchemaCache,
  type Table,
  type Volatility,
} from '../schema/types';

const CATEGORIES: Record<string, string> = {
  int4: 'N',
  int8: 'N',
  numeric: 'N',
  text: 'S',
  varchar: 'S',
  bool: 'B',
  jsonb: 'U',
  json: 'U',
  tsvector: 'U',
  int4range: 'R',
  timestamptz: 'D',
};

export function column(
  name: string,
  type: string,
  baseType: string,
  extra: Partial<Column> = {},
): Column {
  return {
    name,
    type,
    baseType,
    category: baseType.startsWith('_') ? 'A' : (CATEGORIES[baseType] ?? 'U'),
    nullable: true,
    default: null,
    generated: false,
    description: null,
    ...extra,
  };
}

const id = (extra: Partial<Column> = {}): Column =>
  column('id', 'integer', 'int4', { nullable: false, ...extra });

export function table(name: string, columns: Column[], extra: Partial<Table> = {}): Table {
  const primaryKey = extra.primaryKey ?? ['id'];
  return {
    schema: 'public',
    name,
    kind: 'table',
    insertable: true,
    updatable: true,
    deletable: true,
    primaryKey,
    uniqueKeys: primaryKey.length > 0 ? [primaryKey] : [],
    columns,
    description: null,
    ...extra,
  };
}

export interface ForeignKey {
  name: string;
  table: string;
  columns: string[];
  target: string;
  targetColumns: string[];
}

const pairs = (from: string[], to: string[]): ColumnPair[] =>
  from.map((f, i) => ({ from: f, to: to[i]! }));

const q = (name: string, schema = 'public'): QualifiedName => ({ schema, name });

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}

const sameSet = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

/** m2o/o2m (o2o when the FK columns are a unique key) and m2m through junctions. */
export function deriveRelationships(
  tables: Map<string, Table>,
  fks: ForeignKey[],
  schema = 'public',
): Map<string, Relationship[]> {
  const rels = new Map<string, Relationship[]>();
  const add = (rel: Relationship): void => append(rels, qualifiedKey(rel.origin), rel);
  const uniqueKeys = (name: string): string[][] =>
    tables.get(qualifiedKey(q(name, schema)))!.uniqueKeys;
  for (const fk of fks) {
    const o2o = uniqueKeys(fk.table).some((key) => sameSet(key, fk.columns));
    const common = { constraint: fk.name, isSelf: fk.table === fk.target };
    add({
      ...common,
      cardinality: o2o ? 'o2o' : 'm2o',
      origin: q(fk.table, schema),
      target: q(fk.target, schema),
      columns: pairs(fk.columns, fk.targetColumns),
      ownsKey: true,
    });
    add({
      ...common,
      cardinality: o2o ? 'o2o' : 'o2m',
      origin: q(fk.target, schema),
      target: q(fk.table, schema),
      columns: pairs(fk.targetColumns, fk.columns),
      ownsKey: false,
    });
  }
  for (const fk1 of fks) {
    for (const fk2 of fks) {
      if (fk1 === fk2 || fk1.table !== fk2.table) continue;
      const both = [...fk1.columns, ...fk2.columns];
      if (!uniqueKeys(fk1.table).some((key) => both.every((c) => key.includes(c)))) continue;
      add({
        cardinality: 'm2m',
        origin: q(fk1.target, schema),
        target: q(fk2.target, schema),
        constraint: fk2.name,
        columns: [],
        junction: {
          table: q(fk1.table, schema),
          originConstraint: fk1.name,
          originColumns: pairs(fk1.targetColumns, fk1.columns),
          targetConstraint: fk2.name,
          targetColumns: pairs(fk2.columns, fk2.targetColumns),
        },
        isSelf: fk1.target === fk2.target,
      });
    }
  }
  return rels;
}

export function fn(
  name: string,
  params: FunctionParam[],
  returns: FunctionReturn,
  volatility: Volatility,
): FunctionDef {
  return { schema: 'public', name, params, returns, volatility, description: null };
}

export const param = (name: string, type: string, extra: Partial<FunctionParam> = {}) => ({
  name,
  type,
  required: true,
  variadic: false,
  ...extra,
});

export function buildCache(
  tables: Table[],
  fks: ForeignKey[],
  functions: FunctionDef[] = [],
): SchemaCache {
  const tableMap = new Map(tables.map((t) => [qualifiedKey(t), t]));
  const functionMap = new Map<string, FunctionDef[]>();
  for (const f of functions) append(functionMap, qualifiedKey(f), f);
  return {
    version: 1,
    schemas: [...new Set(tables.map((t) => t.schema))],
    tables: tableMap,
    relationships: deriveRelationships(tableMap, fks),
    functions: functionMap,
  };
}

const fk = (
  name: string,
  from: string,
  columns: string[],
  target: string,
  targetColumns = ['id'],
): ForeignKey => ({ name, table: from, columns, target, targetColumns });

const TABLES: Table[] = [
  table('directors', [
    id({ default: "nextval('directors_id_seq'::regclass)" }),
    column('name', 'text', 'text'),
    column('last_name', 'text', 'text'),
  ]),
  table('films', [
    id({ default: 'identity' }),
    column('title', 'text', 'text', { nullable: false }),
    column('year', 'integer', 'int4'),
    column('director_id', 'integer', 'int4'),
    column('data', 'jsonb', 'jsonb'),
    column('meta', 'json', 'json'),
    column('tags', 'text[]', '_text'),
    column('tsv', 'tsvector', 'tsvector'),
    column('summary', 'text', 'text'),
    column('runtime', 'int4range', 'int4range'),
    column('rating', 'numeric', 'numeric', { default: '0' }),
    column('created_at', 'timestamp with time zone', 'timestamptz', { default: 'now()' }),
  ]),
  table('actors', [id(), column('name', 'text', 'text')]),
  table(
    'film_actors',
    [
      column('film_id', 'integer', 'int4', { nullable: false }),
      column('actor_id', 'integer', 'int4', { nullable: false }),
      column('character', 'text', 'text'),
    ],
    { primaryKey: ['film_id', 'actor_id'] },
  ),
  table('reviews', [
    id(),
    column('film_id', 'integer', 'int4'),
    column('body', 'text', 'text'),
    column('stars', 'integer', 'int4'),
  ]),
  table('employees', [
    id(),
    column('name', 'text', 'text'),
    column('manager_id', 'integer', 'int4'),
  ]),
  table('addresses', [id(), column('street', 'text', 'text')]),
  table('orders', [
    id(),
    column('billing_address_id', 'integer', 'int4'),
    column('shipping_address_id', 'integer', 'int4'),
    column('total', 'numeric', 'numeric'),
  ]),
  table('people', [id(), column('name', 'text', 'text')]),
  table(
    'passports',
    [id(), column('person_id', 'integer', 'int4'), column('number', 'text', 'text')],
    { uniqueKeys: [['id'], ['person_id']] },
  ),
  table('logs', [column('message', 'text', 'text'), column('level', 'text', 'text')], {
    primaryKey: [],
  }),
];

const FOREIGN_KEYS: ForeignKey[] = [
  fk('films_director_id_fkey', 'films', ['director_id'], 'directors'),
  fk('film_actors_film_id_fkey', 'film_actors', ['film_id'], 'films'),
  fk('film_actors_actor_id_fkey', 'film_actors', ['actor_id'], 'actors'),
  fk('reviews_film_id_fkey', 'reviews', ['film_id'], 'films'),
  fk('employees_manager_id_fkey', 'employees', ['manager_id'], 'employees'),
  fk('billing', 'orders', ['billing_address_id'], 'addresses'),
  fk('shipping', 'orders', ['shipping_address_id'], 'addresses'),
  fk('passports_person_id_fkey', 'passports', ['person_id'], 'people'),
];

const scalar = (type: string, setOf = false): FunctionReturn => ({ kind: 'scalar', setOf, type });

const FUNCTIONS: FunctionDef[] = [
  fn('add', [param('a', 'integer'), param('b', 'integer')], scalar('integer'), 'immutable'),
  fn(
    'films_since',
    [param('y', 'integer')],
    { kind: 'composite', setOf: true, type: 'films', table: q('films') },
    'stable',
  ),
  fn(
    'film_by_id',
    [param('film_id', 'integer')],
    { kind: 'composite', setOf: false, type: 'films', table: q('films') },
    'stable',
  ),
  fn('director_stats', [], { kind: 'record', setOf: true, type: 'record' }, 'stable'),
  fn('reset_stats', [], { kind: 'void', setOf: false, type: 'void' }, 'volatile'),
  fn('ingest', [param('', 'json')], scalar('integer'), 'volatile'),
  fn('lookup', [param('film_id', 'integer')], scalar('text'), 'stable'),
  fn('lookup', [param('title', 'text')], scalar('text'), 'stable'),
  fn('pick', [param('x', 'integer')], scalar('text'), 'immutable'),
  fn('pick', [param('x', 'text')], scalar('text'), 'immutable'),
  fn(
    'search',
    [param('term', 'text'), param('max', 'integer', { required: false })],
    scalar('text', true),
    'stable',
  ),
  fn('concat_all', [param('parts', 'text[]', { variadic: true })], scalar('text'), 'immutable'),
];

/** directors, films (+ json/array/tsvector/range columns), actors via film_actors (m2m),
 * reviews (o2m), employees (self), orders → addresses twice, passports → people (o2o), logs
 * (no primary key), and functions covering scalar/set/void/whole-body/overloads/variadic. */
export const fixtureCache: SchemaCache = buildCache(TABLES, FOREIGN_KEYS, FUNCTIONS);

export const tableOf = (name: string, cache: SchemaCache = fixtureCache): Table =>
  cache.tables.get(`public.${name}`)!;

export interface UrlOptions {
  prefer?: string;
  range?: string;
  accept?: string;
  body?: string | RawBody;
  maxRows?: number;
  cache?: SchemaCache;
}

/** `GET /films?select=...`, `POST /rpc/add`: parses the URL and headers like the engine. */
export function parseUrl(method: string, url: string, options: UrlOptions = {}): PlanInput {
  const [path = '', query = ''] = url.split('?', 2) as [string, string?];
  const segments = path.split('/').filter((s) => s !== '');
  const rpc = segments[0] === 'rpc';
  const name = decodeURIComponent(rpc ? segments[1]! : segments[0]!);
  const request: ParsedRequest = parseRequest({
    params: decodeQueryString(query),
    headers: {
      ...(options.prefer === undefined ? {} : { prefer: options.prefer }),
      ...(options.range === undefined ? {} : { range: options.range }),
    },
    method,
    rpc: rpc && (method === 'GET' || method === 'HEAD'),
  });
  const body: RawBody | undefined =
    typeof options.body === 'string'
      ? { contentType: 'application/json', text: options.body }
      : options.body;
  return {
    method,
    target: rpc ? { kind: 'rpc', name } : { kind: 'table', name },
    request,
    schema: 'public',
    cache: options.cache ?? fixtureCache,
    ...(body ? { body } : {}),
    ...(options.accept === undefined ? {} : { accept: options.accept }),
    maxRows: options.maxRows ?? 1000,
  };
}

export const planUrl = (method: string, url: string, options: UrlOptions = {}): Plan =>
  plan(parseUrl(method, url, options));
