import type { PoolClient } from 'pg';
import {
  Cardinality,
  Column,
  ColumnPair,
  FunctionDef,
  FunctionReturn,
  NEVER_EXPOSED_SCHEMAS,
  QualifiedName,
  qualifiedKey,
  Relationship,
  SchemaCache,
  Table,
  Volatility,
} from './types';

type Queryable = { query: PoolClient['query'] };

/**
 * Loads the schema cache from pg_catalog inside the caller's (request) transaction. The
 * role is an unprivileged API role, so only catalogs readable by PUBLIC are used, and no
 * privilege filtering happens: exposure and grants are checked per request.
 *
 * Round trips: one lists the user schemas and pins search_path to '' (saving the caller's),
 * four read the catalog (relations, columns, constraints, functions), one restores the
 * caller's search_path for the rest of the request.
 */
export async function loadSchemaCache(client: Queryable, version: number): Promise<SchemaCache> {
  const { savedSearchPath, schemas } = await pinSearchPathAndListSchemas(client);
  const relations = await queryRelations(client, schemas);
  const columns = await queryColumns(client, schemas);
  const constraints = await queryConstraints(client, schemas);
  const functions = await queryFunctions(client, schemas);
  // Not in a finally: after a failed query the transaction is aborted and rolls the
  // transaction-local setting back anyway; a restore there would only mask the error.
  await client.query('SELECT pg_catalog.set_config($1, $2, true)', [
    'search_path',
    savedSearchPath,
  ]);

  const tables = buildTables(relations, columns, constraints);
  return {
    version,
    schemas,
    tables,
    relationships: deriveRelationships(tables, foreignKeysOf(constraints, tables)),
    functions: buildFunctions(functions, tables),
  };
}

// Every schema but the system ones (`pg_*` covers pg_catalog, pg_toast, pg_temp_N and
// pg_toast_temp_N: users cannot create `pg_` schemas) and the platform's own.
const EXCLUDED_SCHEMAS = [...new Set([...NEVER_EXPOSED_SCHEMAS, 'information_schema'])];

// Tables, views, materialized views, foreign and partitioned tables; partitions are reached
// through their parent. Expects `c` (pg_class) and `n` (its pg_namespace) and $1 = schemas.
const LOADED_RELATION = `c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition
  AND n.nspname = ANY($1::text[])`;

/**
 * format_type() qualifies a type only when it is not visible on search_path, so type
 * names would depend on the profile of whichever request loaded the cache (`mood` vs
 * `public.mood`). PostgREST loads with an empty search_path for the same reason. The
 * subquery (OFFSET 0 keeps it from being flattened) reads the old value before it changes.
 * The same round trip lists the user schemas every later query is limited to.
 */
async function pinSearchPathAndListSchemas(
  client: Queryable,
): Promise<{ savedSearchPath: string; schemas: string[] }> {
  const { rows } = await client.query<{ saved: string; schemas: string[] }>(
    `SELECT s.saved, pg_catalog.set_config('search_path', '', true),
       ARRAY(SELECT n.nspname::text FROM pg_catalog.pg_namespace n
             WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> ALL($1::text[])
             ORDER BY n.nspname) AS schemas
     FROM (SELECT pg_catalog.current_setting('search_path') AS saved OFFSET 0) s`,
    [EXCLUDED_SCHEMAS],
  );
  return { savedSearchPath: rows[0]!.saved, schemas: rows[0]!.schemas };
}

// Bits of pg_relation_is_updatable: 1 << CMD_UPDATE, 1 << CMD_INSERT, 1 << CMD_DELETE.
const UPDATE_EVENT = 4;
const INSERT_EVENT = 8;
const DELETE_EVENT = 16;
const ALL_EVENTS = UPDATE_EVENT | INSERT_EVENT | DELETE_EVENT;

interface RelationRow {
  schema: string;
  name: string;
  kind: 'r' | 'v' | 'm' | 'f' | 'p';
  events: number;
  description: string | null;
}

// pg_relation_is_updatable is only asked about views and foreign tables: it locks each
// relation it inspects, and tables (all events) and matviews (none) need no asking.
async function queryRelations(client: Queryable, schemas: string[]): Promise<RelationRow[]> {
  const { rows } = await client.query<RelationRow>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind,
       CASE WHEN c.relkind IN ('r', 'p') THEN ${ALL_EVENTS}
            WHEN c.relkind IN ('v', 'f') THEN pg_catalog.pg_relation_is_updatable(c.oid, true)
            ELSE 0 END AS events,
       pg_catalog.obj_description(c.oid, 'pg_class') AS description
     FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE ${LOADED_RELATION}
     ORDER BY n.nspname, c.relname`,
    [schemas],
  );
  return rows;
}

const KINDS: Record<RelationRow['kind'], Table['kind']> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
};

interface ColumnRow {
  schema: string;
  relation: string;
  name: string;
  type: string;
  base_type: string;
  category: string;
  nullable: boolean;
  /** pg_attribute.attidentity: '' none, 'a' always, 'd' by default. */
  identity: '' | 'a' | 'd';
  /** pg_attribute.attgenerated: '' none, 's' stored. */
  generated: '' | 's';
  default_expr: string | null;
  enum_values: string[] | null;
  max_length: number | null;
  description: string | null;
}

/**
 * Columns in attnum order. `domain_bases` walks domains down to their base type (domains
 * may stack), so `base_type`, `category` and enum labels describe what is stored.
 * varchar(n)/char(n) store n + 4 in the typmod; a domain carries it in typtypmod instead.
 */
async function queryColumns(client: Queryable, schemas: string[]): Promise<ColumnRow[]> {
  const { rows } = await client.query<ColumnRow>(
    `WITH RECURSIVE domain_bases(type_oid, base_oid) AS (
       SELECT t.oid, t.typbasetype FROM pg_catalog.pg_type t WHERE t.typtype = 'd'
       UNION ALL
       SELECT d.type_oid, t.typbasetype
       FROM domain_bases d JOIN pg_catalog.pg_type t ON t.oid = d.base_oid
       WHERE t.typtype = 'd'
     )
     SELECT n.nspname AS schema, c.relname AS relation, a.attname AS name,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
       bt.typname AS base_type, bt.typcategory AS category,
       NOT a.attnotnull AS nullable, a.attidentity AS identity, a.attgenerated AS generated,
       pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) AS default_expr,
       CASE WHEN bt.typtype = 'e' THEN ARRAY(
         SELECT e.enumlabel::text FROM pg_catalog.pg_enum e
         WHERE e.enumtypid = bt.oid ORDER BY e.enumsortorder) END AS enum_values,
       CASE WHEN bt.typname IN ('varchar', 'bpchar') AND tm.typmod > 4 THEN tm.typmod - 4
       END AS max_length,
       pg_catalog.col_description(a.attrelid, a.attnum) AS description
     FROM pg_catalog.pg_attribute a
     JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
     CROSS JOIN LATERAL (
       SELECT CASE WHEN a.atttypmod >= 0 THEN a.atttypmod ELSE t.typtypmod END AS typmod
     ) tm
     LEFT JOIN domain_bases db ON db.type_oid = a.atttypid
     JOIN pg_catalog.pg_type bt ON bt.oid = coalesce(db.base_oid, a.atttypid)
     LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
     WHERE ${LOADED_RELATION} AND a.attnum > 0 AND NOT a.attisdropped AND bt.typtype <> 'd'
     ORDER BY n.nspname, c.relname, a.attnum`,
    [schemas],
  );
  return rows;
}

/**
 * Identity columns have no pg_attrdef row (the sequence is implicit), yet an INSERT may
 * leave them out: they get the IDENTITY_DEFAULT marker. A stored generated column's
 * pg_attrdef row is its generation expression, not a default.
 */
export const IDENTITY_DEFAULT = 'identity';

function defaultOf(row: ColumnRow): string | null {
  if (row.identity) return IDENTITY_DEFAULT;
  return row.generated ? null : row.default_expr;
}

function toColumn(row: ColumnRow): Column {
  const column: Column = {
    name: row.name,
    type: row.type,
    baseType: row.base_type,
    category: row.category,
    nullable: row.nullable,
    default: defaultOf(row),
    generated: row.identity === 'a' || row.generated === 's',
    description: row.description,
  };
  if (row.enum_values) column.enumValues = row.enum_values;
  if (row.max_length !== null) column.maxLength = row.max_length;
  return column;
}

interface ConstraintRow {
  name: string;
  type: 'p' | 'u' | 'f';
  schema: string;
  relation: string;
  /** In key position order. */
  columns: string[];
  /** Foreign keys only: the referenced table and its columns, pairwise with `columns`. */
  target_schema: string | null;
  target_relation: string | null;
  target_columns: string[] | null;
}

// conparentid <> 0 marks the copies Postgres makes on partitions (and, for FKs to a
// partitioned table, one per referenced partition): the parent's row stands for them.
async function queryConstraints(client: Queryable, schemas: string[]): Promise<ConstraintRow[]> {
  const keyNames = (rel: string, keys: string) =>
    `ARRAY(SELECT a.attname::text FROM pg_catalog.unnest(${keys}) WITH ORDINALITY k(attnum, pos)
       JOIN pg_catalog.pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.attnum
       ORDER BY k.pos)`;
  const { rows } = await client.query<ConstraintRow>(
    `SELECT con.conname AS name, con.contype AS type, n.nspname AS schema, c.relname AS relation,
       ${keyNames('con.conrelid', 'con.conkey')} AS columns,
       tn.nspname AS target_schema, tc.relname AS target_relation,
       CASE WHEN con.contype = 'f' THEN ${keyNames('con.confrelid', 'con.confkey')}
       END AS target_columns
     FROM pg_catalog.pg_constraint con
     JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_class tc ON tc.oid = con.confrelid
     LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = tc.relnamespace
     WHERE ${LOADED_RELATION} AND con.contype IN ('p', 'u', 'f') AND con.conparentid = 0
     ORDER BY n.nspname, c.relname, con.contype, con.conname`,
    [schemas],
  );
  return rows;
}

function buildTables(
  relations: RelationRow[],
  columns: ColumnRow[],
  constraints: ConstraintRow[],
): Map<string, Table> {
  const tables = new Map<string, Table>();
  for (const r of relations) {
    tables.set(qualifiedKey(r), {
      schema: r.schema,
      name: r.name,
      kind: KINDS[r.kind],
      insertable: (r.events & INSERT_EVENT) !== 0,
      updatable: (r.events & UPDATE_EVENT) !== 0,
      deletable: (r.events & DELETE_EVENT) !== 0,
      primaryKey: [],
      uniqueKeys: [],
      columns: [],
      description: r.description,
    });
  }
  for (const row of columns) {
    tables
      .get(qualifiedKey({ schema: row.schema, name: row.relation }))
      ?.columns.push(toColumn(row));
  }
  // Ordered by contype, so the primary key ('p') comes before unique constraints ('u').
  for (const con of constraints) {
    const table = tables.get(qualifiedKey({ schema: con.schema, name: con.relation }));
    if (!table || con.type === 'f') continue;
    if (con.type === 'p') table.primaryKey = con.columns;
    table.uniqueKeys.push(con.columns);
  }
  return tables;
}

interface ForeignKey {
  name: string;
  table: QualifiedName;
  columns: string[];
  target: QualifiedName;
  targetColumns: string[];
}

/** Foreign keys whose both ends are loaded (an FK to auth.users yields no relationship). */
function foreignKeysOf(constraints: ConstraintRow[], tables: Map<string, Table>): ForeignKey[] {
  const fks: ForeignKey[] = [];
  for (const con of constraints) {
    if (con.type !== 'f' || con.target_schema === null || con.target_relation === null) continue;
    const table = { schema: con.schema, name: con.relation };
    const target = { schema: con.target_schema, name: con.target_relation };
    if (!tables.has(qualifiedKey(table)) || !tables.has(qualifiedKey(target))) continue;
    fks.push({
      name: con.name,
      table,
      columns: con.columns,
      target,
      targetColumns: con.target_columns ?? [],
    });
  }
  return fks;
}

const pairs = (from: string[], to: string[]): ColumnPair[] =>
  from.map((f, i) => ({ from: f, to: to[i]! }));

const sameTable = (a: QualifiedName, b: QualifiedName): boolean =>
  a.schema === b.schema && a.name === b.name;

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const orderedPairs = <T>(items: T[]): [T, T][] =>
  items.flatMap((a) => items.filter((b) => b !== a).map((b): [T, T] => [a, b]));

const sameSet = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

/**
 * FK on A(a..) -> B(b..): A sees B as m2o and B sees A as o2m, both o2o when A's FK columns
 * are exactly one of A's unique keys. M2M: a junction J with FKs fk1 -> A and fk2 -> B
 * (distinct constraints) whose columns together lie in one unique key of J; each ordered
 * pair gives one direction, so A -> B and B -> A both appear.
 */
function deriveRelationships(
  tables: Map<string, Table>,
  fks: ForeignKey[],
): Map<string, Relationship[]> {
  const relationships = new Map<string, Relationship[]>();
  const add = (rel: Relationship) => append(relationships, qualifiedKey(rel.origin), rel);
  const uniqueKeysOf = (q: QualifiedName) => tables.get(qualifiedKey(q))!.uniqueKeys;

  for (const fk of fks) {
    const oneToOne = uniqueKeysOf(fk.table).some((key) => sameSet(key, fk.columns));
    const direct = (cardinality: Cardinality, origin: QualifiedName, target: QualifiedName) => ({
      cardinality: oneToOne ? ('o2o' as const) : cardinality,
      origin,
      target,
      constraint: fk.name,
      isSelf: sameTable(fk.table, fk.target),
    });
    add({
      ...direct('m2o', fk.table, fk.target),
      columns: pairs(fk.columns, fk.targetColumns),
      ownsKey: true,
    });
    add({
      ...direct('o2m', fk.target, fk.table),
      columns: pairs(fk.targetColumns, fk.columns),
      ownsKey: false,
    });
  }

  const byTable = new Map<string, ForeignKey[]>();
  for (const fk of fks) append(byTable, qualifiedKey(fk.table), fk);
  for (const junctionFks of byTable.values()) {
    for (const [fk1, fk2] of orderedPairs(junctionFks)) {
      const both = [...fk1.columns, ...fk2.columns];
      if (!uniqueKeysOf(fk1.table).some((key) => both.every((c) => key.includes(c)))) continue;
      add({
        cardinality: 'm2m',
        origin: fk1.target,
        target: fk2.target,
        constraint: fk2.name,
        columns: [],
        junction: {
          table: fk1.table,
          originConstraint: fk1.name,
          originColumns: pairs(fk1.targetColumns, fk1.columns),
          targetConstraint: fk2.name,
          targetColumns: pairs(fk2.columns, fk2.targetColumns),
        },
        isSelf: sameTable(fk1.target, fk2.target),
      });
    }
  }
  return relationships;
}

interface FunctionRow {
  schema: string;
  name: string;
  /** Input parameters (IN, INOUT, VARIADIC) in declaration order. */
  params: { name: string; type: string; variadic: boolean }[];
  defaults: number;
  volatility: 'i' | 's' | 'v';
  set_of: boolean;
  return_type: string;
  /** pg_type.typname and typtype of the declared return type. */
  return_type_name: string;
  return_typtype: string;
  /** The relation behind a composite return type. */
  return_schema: string | null;
  return_relation: string | null;
  description: string | null;
}

/**
 * Plain functions (no procedures, aggregates or window functions). Pseudo-types other than
 * record and void (anyelement, internal, trigger, event_trigger...) cannot be called over
 * HTTP, so functions using them anywhere in their signature are left out.
 * proallargtypes and proargmodes are null when every argument is IN (ROWS FROM pads the
 * missing arrays with nulls); OUT and TABLE columns are not parameters.
 */
async function queryFunctions(client: Queryable, schemas: string[]): Promise<FunctionRow[]> {
  const { rows } = await client.query<FunctionRow>(
    `SELECT n.nspname AS schema, p.proname AS name, args.params, p.pronargdefaults AS defaults,
       p.provolatile AS volatility, p.proretset AS set_of,
       pg_catalog.format_type(p.prorettype, NULL) AS return_type,
       rt.typname AS return_type_name, rt.typtype AS return_typtype,
       rn.nspname AS return_schema, rc.relname AS return_relation,
       pg_catalog.obj_description(p.oid, 'pg_proc') AS description
     FROM pg_catalog.pg_proc p
     JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
     JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
     LEFT JOIN pg_catalog.pg_class rc ON rc.oid = rt.typrelid
     LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
     CROSS JOIN LATERAL (
       SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_object(
           'name', coalesce(a.name, ''),
           'type', pg_catalog.format_type(a.type_oid, NULL),
           'variadic', a.mode IS NOT DISTINCT FROM 'v') ORDER BY a.pos)
         FILTER (WHERE coalesce(a.mode, 'i') IN ('i', 'b', 'v')), '[]') AS params,
         pg_catalog.bool_or(t.typtype = 'p' AND t.typname NOT IN ('record', 'void')) AS pseudo
       FROM ROWS FROM (
         pg_catalog.unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])),
         pg_catalog.unnest(p.proargmodes),
         pg_catalog.unnest(p.proargnames)
       ) WITH ORDINALITY a(type_oid, mode, name, pos)
       JOIN pg_catalog.pg_type t ON t.oid = a.type_oid
     ) args
     WHERE n.nspname = ANY($1::text[]) AND p.prokind = 'f'
       AND (rt.typtype <> 'p' OR rt.typname IN ('record', 'void'))
       AND args.pseudo IS NOT TRUE
     ORDER BY n.nspname, p.proname, p.oid`,
    [schemas],
  );
  return rows;
}

const VOLATILITY: Record<FunctionRow['volatility'], Volatility> = {
  i: 'immutable',
  s: 'stable',
  v: 'volatile',
};

function toReturn(row: FunctionRow, tables: Map<string, Table>): FunctionReturn {
  const base = { setOf: row.set_of, type: row.return_type };
  if (row.return_typtype === 'p') {
    return { ...base, kind: row.return_type_name === 'void' ? 'void' : 'record' };
  }
  if (row.return_typtype !== 'c') return { ...base, kind: 'scalar' };
  // A standalone composite type (CREATE TYPE ... AS) has a pg_class row too, never loaded.
  const relation =
    row.return_schema !== null && row.return_relation !== null
      ? { schema: row.return_schema, name: row.return_relation }
      : undefined;
  return relation && tables.has(qualifiedKey(relation))
    ? { ...base, kind: 'composite', table: relation }
    : { ...base, kind: 'composite' };
}

/** The last `pronargdefaults` input parameters have defaults, so they are optional. */
function toFunction(row: FunctionRow, tables: Map<string, Table>): FunctionDef {
  const firstOptional = row.params.length - row.defaults;
  return {
    schema: row.schema,
    name: row.name,
    params: row.params.map((p, i) => ({ ...p, required: i < firstOptional })),
    returns: toReturn(row, tables),
    volatility: VOLATILITY[row.volatility],
    description: row.description,
  };
}

function buildFunctions(
  rows: FunctionRow[],
  tables: Map<string, Table>,
): Map<string, FunctionDef[]> {
  const functions = new Map<string, FunctionDef[]>();
  for (const row of rows) append(functions, qualifiedKey(row), toFunction(row, tables));
  return functions;
}
