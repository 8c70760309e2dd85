/**
 * The request AST produced by the parse stage. It holds names exactly as the client wrote them
 * (unquoted, unescaped) and values as raw strings: deciding what a name refers to belongs to the
 * plan stage (schema cache) and turning values into SQL parameters belongs to the build stage.
 */

export type JsonArrow = '->' | '->>';

/** One JSON path step; a number is an array index (`->0`, `->-1`), a string an object key. */
export interface JsonStep {
  arrow: JsonArrow;
  key: string | number;
}

export interface Field {
  name: string;
  jsonPath: JsonStep[];
}

export type AggregateFunction = 'sum' | 'avg' | 'count' | 'max' | 'min';

export interface StarItem {
  type: 'star';
}

export interface ColumnItem {
  type: 'column';
  field: Field;
  alias?: string;
  cast?: string;
  aggregate?: { fn: AggregateFunction; cast?: string };
}

/** `count()` with no column: the row count aggregate. */
export interface CountItem {
  type: 'count';
  alias?: string;
  cast?: string;
}

export type JoinType = 'inner' | 'left';

export interface EmbedItem {
  type: 'embed';
  relation: string;
  alias?: string;
  /** Text after `!` that is not inner/left: an FK name, FK column or junction table. */
  hint?: string;
  join?: JoinType;
  spread: boolean;
  /** Empty for `rel()`: the embed only filters and is left out of the output. */
  select: SelectItem[];
}

export type SelectItem = StarItem | ColumnItem | CountItem | EmbedItem;

export type QuantOperator =
  'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike' | 'match' | 'imatch';
export type SimpleOperator = 'neq' | 'cs' | 'cd' | 'ov' | 'sl' | 'sr' | 'nxr' | 'nxl' | 'adj';
export type FtsOperator = 'fts' | 'plfts' | 'phfts' | 'wfts';
export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';
export type Quantifier = 'any' | 'all';

/**
 * The operator and its raw value. like/ilike values keep `*` as sent: the build stage swaps it for
 * `%`. Quantified values (`like(any).{a*,b*}`) stay one `{...}` literal string.
 */
export type Operation =
  | { op: QuantOperator; quantifier?: Quantifier; value: string }
  | { op: SimpleOperator; value: string }
  | { op: 'isdistinct'; value: string }
  | { op: 'in'; values: string[] }
  | { op: 'is'; value: IsValue }
  | { op: FtsOperator; config?: string; value: string };

export interface OpExpr {
  negated: boolean;
  operation: Operation;
}

export interface FilterCondition extends OpExpr {
  type: 'filter';
  field: Field;
}

export interface LogicTree {
  type: 'logic';
  operator: 'and' | 'or';
  negated: boolean;
  conditions: Condition[];
}

export type Condition = FilterCondition | LogicTree;

/** Where a modifier applies: [] is the top-level relation, ['a', 'b'] the embed b inside a. */
export type EmbedPath = string[];

export interface ScopedCondition {
  path: EmbedPath;
  condition: Condition;
}

export interface OrderTerm {
  field: Field;
  /** Set for `order=rel(col)`: ordering by a column of a to-one embed. */
  relation?: string;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export interface ScopedOrder {
  path: EmbedPath;
  terms: OrderTerm[];
}

export interface ScopedRange {
  path: EmbedPath;
  limit?: number;
  offset?: number;
}

export interface Preferences {
  return?: 'minimal' | 'headers-only' | 'representation';
  count?: 'exact' | 'planned' | 'estimated';
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  missing?: 'default' | 'null';
  handling?: 'lenient' | 'strict';
  tx?: 'commit' | 'rollback';
  /** Checked against pg_timezone_names by a later stage: the parser cannot know the list. */
  timezone?: string;
  maxAffected?: number;
  /** Tokens ignored under handling=lenient (the strict case has already thrown PGRST122). */
  invalid: string[];
}

/** The `Range: from-[to]` request header. */
export interface RangeHeader {
  from: number;
  to?: number;
}

export interface ParsedRequest {
  select: SelectItem[];
  conditions: ScopedCondition[];
  order: ScopedOrder[];
  ranges: ScopedRange[];
  onConflict?: string[];
  columns?: string[];
  preferences: Preferences;
  range?: RangeHeader;
  /** GET RPC only: params that are not `op.value` filters are function arguments. */
  rpcArguments: Array<[string, string]>;
}
