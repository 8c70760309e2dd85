/**
 * The plan: the request AST resolved against the schema cache. Every name here is known to
 * refer to a table, a relationship or a function of the cache; values are still raw strings
 * (the build stage binds them). Built by plan.ts, turned into SQL by build/.
 */
import type { IsValue, JsonStep, Operation, Preferences } from '../parse/ast';
import type { FunctionDef, FunctionParam, Relationship, Table } from '../schema/types';

export type MediaType = 'json' | 'object' | 'csv' | 'openapi';

export interface Media {
  type: MediaType;
  /** `;nulls=stripped`: json_strip_nulls on every row. */
  stripNulls: boolean;
  /** Content-Type of the response. */
  contentType: string;
}

export interface PlannedColumn {
  kind: 'column';
  column: string;
  jsonPath: JsonStep[];
  /** The column's type is json/jsonb: a JSON path applies as is, else through to_jsonb. */
  isJson: boolean;
  cast?: string;
  outputName: string;
}

export interface PlannedStar {
  kind: 'star';
  /** Set when `*` must be spelled out (rows read back from a write's RETURNING). */
  columns?: string[];
}

export interface PlannedEmbedItem {
  kind: 'embed';
  embed: EmbedNode;
}

export type PlannedItem = PlannedColumn | PlannedStar | PlannedEmbedItem;

export interface PlannedFilter {
  type: 'filter';
  column: string;
  jsonPath: JsonStep[];
  isJson: boolean;
  /** fts on a column that is not a tsvector wraps it in to_tsvector (PostgREST v13). */
  isTsvector: boolean;
  negated: boolean;
  operation: Operation;
}

export interface PlannedLogic {
  type: 'logic';
  operator: 'and' | 'or';
  negated: boolean;
  conditions: PlannedCondition[];
}

/** `rel=is.null` / `rel=not.is.null`: the embed is (not) empty. */
export interface PlannedEmbedNull {
  type: 'embed-null';
  embed: EmbedNode;
  isNull: boolean;
}

export type PlannedCondition = PlannedFilter | PlannedLogic | PlannedEmbedNull;

export interface PlannedOrder {
  column: string;
  jsonPath: JsonStep[];
  isJson: boolean;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
  /** `order=rel(col)`: a column of a to-one relationship, read through a correlated subquery. */
  relationship?: Relationship;
  relationTable?: Table;
}

/** Where a read node's rows come from. */
export type NodeSource =
  | { kind: 'table'; table: Table }
  /** A write's RETURNING rows, read back under the table's name (`FROM pgrst_source AS "t"`). */
  | { kind: 'written'; table: Table }
  /** A set-returning or composite function call. */
  | { kind: 'call'; table?: Table };

export interface ReadNode {
  source: NodeSource;
  /** How SQL refers to this node's rows: `"public"."films"`, `"films"`, `"films_1"`. */
  ref: string;
  /** Table name used in messages and in the aliases of embeds below it. */
  name: string;
  select: PlannedItem[];
  conditions: PlannedCondition[];
  order: PlannedOrder[];
  limit?: number;
  offset?: number;
}

export interface EmbedNode {
  relationship: Relationship;
  node: ReadNode;
  /** Key in the parent's JSON (alias or relation name as written). */
  outputName: string;
  inner: boolean;
  spread: boolean;
  /** `rel()`: joined for filtering only, left out of the output. */
  hidden: boolean;
  toOne: boolean;
  /** SQL alias of the lateral subquery. */
  lateral: string;
  /** For spreads: the names the child contributes to the parent. */
  spreadNames: string[];
}

export interface CountPlan {
  kind: 'exact' | 'planned' | 'estimated';
}

export interface ReadPlan {
  action: 'read';
  schema: string;
  root: ReadNode;
  count?: CountPlan['kind'];
  /** HEAD: no body is aggregated. */
  head: boolean;
  media: Media;
  maxRows: number;
}

export type WriteKind = 'insert' | 'update' | 'delete';

export interface WritePlan {
  action: 'write';
  kind: WriteKind;
  schema: string;
  table: Table;
  /** Columns written (insert/update), in order. */
  columns: string[];
  /** The JSON text bound as the payload: an array for insert, an object for update. */
  payload: string;
  /** Insert with Prefer: missing=default: absent keys take the column default, per row. */
  missingDefault: boolean;
  onConflict?: { columns: string[]; resolution: 'merge-duplicates' | 'ignore-duplicates' };
  /** Top-level filters (update/delete). */
  conditions: PlannedCondition[];
  /** The rows returned, shaped by select/order over the written rows; absent for minimal. */
  returning?: ReadNode;
  /** return=headers-only on an insert into a table with a primary key: build Location. */
  locationKey?: string[];
  /** PUT: a single-row upsert by primary key (204 minimal; 201 inserted / 200 updated). */
  put?: boolean;
  count?: CountPlan['kind'];
  media: Media;
}

export interface CallArgument {
  param: FunctionParam;
  /** GET: the raw query value(s); several for a variadic parameter. */
  values?: string[];
}

export interface CallPlan {
  action: 'call';
  schema: string;
  fn: FunctionDef;
  /** POST: the JSON object text of the arguments; GET: per-argument values. */
  payload?: string;
  /** The function takes the whole JSON body as its single unnamed json/jsonb parameter. */
  wholeBody?: FunctionParam;
  args: CallArgument[];
  /** Shaping of a set or composite result (select/filters/order/limit); absent for scalars. */
  root?: ReadNode;
  /** limit/offset/Range (and max rows) of a set of scalars. */
  scalarRange?: { limit?: number; offset: number };
  readOnly: boolean;
  count?: CountPlan['kind'];
  head: boolean;
  media: Media;
  maxRows: number;
}

export type Plan = ReadPlan | WritePlan | CallPlan;

export interface PlanContext {
  preferences: Preferences;
}

export type { IsValue };
