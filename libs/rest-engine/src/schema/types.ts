/**
 * The schema cache: what the plan stage knows about a project's database. Loaded from the
 * catalog (see load.ts) once per schema version, then read by every request without a
 * round trip. Plain data, so plan/build unit tests construct it by hand.
 */

export interface QualifiedName {
  schema: string;
  name: string;
}

export interface Column {
  name: string;
  /** `format_type(atttypid, atttypmod)`: `integer`, `character varying(20)`, `text[]`, `public.mood`. */
  type: string;
  /** Base type name after domains (`pg_type.typname`): `int4`, `jsonb`, `tsvector`, `_text` for arrays. */
  baseType: string;
  /** `pg_type.typcategory` of the base type: `A` array, `C` composite, `R` range, `S` string, ... */
  category: string;
  nullable: boolean;
  /**
   * `pg_get_expr` of the column default (schema text, never user input); null when none.
   * Identity columns have no default expression yet are filled on INSERT: they carry the
   * marker `'identity'` (IDENTITY_DEFAULT in load.ts), which is not SQL. Stored generated
   * columns have null here (their expression is not a default).
   */
  default: string | null;
  /** Generated or identity-always columns cannot be written. */
  generated: boolean;
  /** Labels when the (base) type is an enum. */
  enumValues?: string[];
  /** Maximum length for `character varying(n)` / `character(n)`. */
  maxLength?: number;
  description: string | null;
}

export interface Table extends QualifiedName {
  kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  /** Primary key column names in key order; empty when none. */
  primaryKey: string[];
  /** Every unique constraint (PK included) as column lists, for on_conflict and cardinality. */
  uniqueKeys: string[][];
  /** In attribute order. */
  columns: Column[];
  description: string | null;
}

/** A column pair of a foreign key: `from` on the origin side, `to` on the target side. */
export interface ColumnPair {
  from: string;
  to: string;
}

export type Cardinality = 'm2o' | 'o2m' | 'o2o' | 'm2m';

/**
 * A relationship as seen from `origin`. For m2o/o2m/o2o, `columns` joins origin to target
 * directly. For m2m, `junction` holds the table in between and the two key halves.
 */
export interface Relationship {
  cardinality: Cardinality;
  origin: QualifiedName;
  target: QualifiedName;
  /** The FK constraint (for m2m: the constraint from the junction to the target). */
  constraint: string;
  /** origin column -> target column (empty for m2m). */
  columns: ColumnPair[];
  junction?: {
    table: QualifiedName;
    /** FK constraint junction -> origin, with pairs origin column -> junction column. */
    originConstraint: string;
    originColumns: ColumnPair[];
    /** FK constraint junction -> target, with pairs junction column -> target column. */
    targetConstraint: string;
    targetColumns: ColumnPair[];
  };
  /** origin and target are the same table. */
  isSelf: boolean;
  /** The FK constraint is declared on the origin (m2o, and the o2o seen from its holder). */
  ownsKey?: boolean;
}

export interface FunctionParam {
  /** Empty for an unnamed parameter. */
  name: string;
  /** `format_type` text, used in casts (`$1::integer`) and json_to_record column lists. */
  type: string;
  required: boolean;
  variadic: boolean;
}

export type Volatility = 'immutable' | 'stable' | 'volatile';

export interface FunctionReturn {
  /**
   * `scalar`: a base/domain/enum/array type; `composite`: a table row or composite type
   * (`table` is set when it is a table or view of the cache); `record`: RETURNS TABLE / OUT
   * params; `void`.
   */
  kind: 'scalar' | 'composite' | 'record' | 'void';
  setOf: boolean;
  /** `format_type` of the return type. */
  type: string;
  table?: QualifiedName;
}

export interface FunctionDef extends QualifiedName {
  params: FunctionParam[];
  returns: FunctionReturn;
  volatility: Volatility;
  description: string | null;
}

export interface SchemaCache {
  /** `_platform.schema_version` the cache was loaded at. */
  version: number;
  /** Schemas loaded (every user schema; exposure is checked per request). */
  schemas: string[];
  /** Key: `schema.name` (see qualifiedKey). */
  tables: Map<string, Table>;
  /** Key: `schema.name` of the origin table. */
  relationships: Map<string, Relationship[]>;
  /** Key: `schema.name`; overloads share a key. */
  functions: Map<string, FunctionDef[]>;
}

export const qualifiedKey = (q: QualifiedName): string => `${q.schema}.${q.name}`;

/** Schemas never exposed through the REST API, whatever the project's settings say. */
export const NEVER_EXPOSED_SCHEMAS: readonly string[] = [
  'auth',
  'storage',
  '_platform',
  'pg_catalog',
  'information_schema',
];
