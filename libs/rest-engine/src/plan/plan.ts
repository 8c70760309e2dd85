import type {
  Condition,
  EmbedItem,
  EmbedPath,
  Field,
  OrderTerm,
  ParsedRequest,
  SelectItem,
} from '../parse/ast';
import { PostgrestError } from '../postgrest-error';
import {
  qualifiedKey,
  type Column,
  type FunctionDef,
  type SchemaCache,
  type Table,
} from '../schema/types';
import { closest } from './fuzzy';
import { negotiateMedia } from './media';
import { parseRpcPayload, parseTablePayload, type RawBody } from './payload';
import { findRelationship, isToOne } from './relationships';
import type {
  CallArgument,
  CallPlan,
  EmbedNode,
  Media,
  NodeSource,
  Plan,
  PlannedCondition,
  PlannedItem,
  PlannedOrder,
  ReadNode,
  ReadPlan,
  WritePlan,
} from './types';

export type Target = { kind: 'table'; name: string } | { kind: 'rpc'; name: string };

export interface PlanInput {
  /** Upper-case HTTP method. */
  method: string;
  target: Target;
  request: ParsedRequest;
  /** The profile schema (already checked against the exposed list). */
  schema: string;
  cache: SchemaCache;
  body?: RawBody;
  accept?: string;
  /** Cap on rows of every read node (db-max-rows). */
  maxRows: number;
}

/** Limits on request size that PostgREST does not have and a shared service needs. */
export const PLAN_LIMITS = {
  /** Elements of one `in.(...)` list. */
  inListValues: 1000,
  /** Filter and logic nodes in one request, all levels counted. */
  conditions: 200,
  /** Embedded resources in one request, all levels counted. */
  embeds: 50,
};

const JSON_TYPES = new Set(['json', 'jsonb']);

/** Resolves a parsed request against the schema cache. Pure: no database, no I/O. */
export function plan(input: PlanInput): Plan {
  checkSize(input.request);
  if (input.target.kind === 'rpc') return planCall(input, input.target.name);
  const table = findTable(input.cache, input.schema, input.target.name);
  switch (input.method) {
    case 'GET':
    case 'HEAD':
      return planRead(input, table);
    case 'POST':
      return planInsert(input, table);
    case 'PATCH':
      return planUpdate(input, table);
    case 'DELETE':
      return planDelete(input, table);
    case 'PUT':
      return planPut(input, table);
    default:
      throw new PostgrestError('PGRST117', 405, `Unsupported HTTP method: ${input.method}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Lookups

export function findTable(cache: SchemaCache, schema: string, name: string): Table {
  const table = cache.tables.get(qualifiedKey({ schema, name }));
  if (table) return table;
  const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
  const suggestion = closest(name, names);
  throw new PostgrestError(
    'PGRST205',
    404,
    `Could not find the table '${schema}.${name}' in the schema cache`,
    null,
    suggestion === undefined ? null : `Perhaps you meant the table '${schema}.${suggestion}'`,
  );
}

const columnOf = (table: Table | undefined, name: string): Column | undefined =>
  table?.columns.find((c) => c.name === name);

const isJsonColumn = (table: Table | undefined, name: string): boolean => {
  const column = columnOf(table, name);
  return column !== undefined && JSON_TYPES.has(column.baseType);
};

function checkSize(request: ParsedRequest): void {
  let conditions = 0;
  const visit = (c: Condition): void => {
    conditions++;
    if (c.type === 'logic') c.conditions.forEach(visit);
    else if (c.operation.op === 'in' && c.operation.values.length > PLAN_LIMITS.inListValues) {
      throw tooLarge(`An in list has more than ${PLAN_LIMITS.inListValues} values`);
    }
  };
  request.conditions.forEach((s) => visit(s.condition));
  if (conditions > PLAN_LIMITS.conditions) {
    throw tooLarge(`The request has more than ${PLAN_LIMITS.conditions} filter conditions`);
  }
  let embeds = 0;
  const count = (items: SelectItem[]): void =>
    items.forEach((i) => {
      if (i.type === 'embed') {
        embeds++;
        count(i.select);
      }
    });
  count(request.select);
  if (embeds > PLAN_LIMITS.embeds) {
    throw tooLarge(`The request embeds more than ${PLAN_LIMITS.embeds} resources`);
  }
}

const tooLarge = (details: string): PostgrestError =>
  new PostgrestError('PGRST100', 400, 'The request is too large to be executed', details);

// ---------------------------------------------------------------------------------------------
// Read trees (tables, embeds, function results, write representations)

interface TreeBuilder {
  cache: SchemaCache;
  request: ParsedRequest;
  maxRows: number;
  aliases: Map<string, number>;
}

function uniqueAlias(b: TreeBuilder, base: string): string {
  const n = (b.aliases.get(base) ?? 0) + 1;
  b.aliases.set(base, n);
  return `${base}_${n}`;
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Output key of a selected column: the alias, else the last JSON key, else the column. */
function defaultName(field: Field): string {
  for (let i = field.jsonPath.length - 1; i >= 0; i--) {
    const key = field.jsonPath[i]!.key;
    if (typeof key === 'string') return key;
  }
  return field.name;
}

function buildNode(
  b: TreeBuilder,
  source: NodeSource,
  name: string,
  ref: string,
  items: SelectItem[],
): ReadNode {
  const table = source.table;
  const node: ReadNode = { source, ref, name, select: [], conditions: [], order: [] };
  for (const item of items) node.select.push(planItem(b, node, table, item));
  return node;
}

function planItem(
  b: TreeBuilder,
  parent: ReadNode,
  table: Table | undefined,
  item: SelectItem,
): PlannedItem {
  switch (item.type) {
    case 'star':
      return parent.source.kind === 'written' && table
        ? { kind: 'star', columns: table.columns.map((c) => c.name) }
        : { kind: 'star' };
    case 'count':
      throw aggregatesDisabled();
    case 'column':
      if (item.aggregate) throw aggregatesDisabled();
      return {
        kind: 'column',
        column: item.field.name,
        jsonPath: item.field.jsonPath,
        isJson: isJsonColumn(table, item.field.name),
        ...(item.cast === undefined ? {} : { cast: item.cast }),
        outputName: item.alias ?? defaultName(item.field),
      };
    case 'embed':
      return { kind: 'embed', embed: planEmbed(b, parent, table, item) };
  }
}

const aggregatesDisabled = (): PostgrestError =>
  new PostgrestError('PGRST123', 400, 'Use of aggregate functions is not allowed');

function planEmbed(
  b: TreeBuilder,
  parent: ReadNode,
  table: Table | undefined,
  item: EmbedItem,
): EmbedNode {
  if (!table) {
    throw new PostgrestError(
      'PGRST200',
      400,
      `Could not find a relationship between '${parent.name}' and '${item.relation}' in the schema cache`,
    );
  }
  const relationship = findRelationship(b.cache, table, item.relation, item.hint);
  const target = b.cache.tables.get(qualifiedKey(relationship.target));
  if (!target) {
    throw new PostgrestError(
      'PGRST200',
      400,
      `Could not find the table '${relationship.target.name}'`,
    );
  }
  const alias = uniqueAlias(b, target.name);
  const node = buildNode(
    b,
    { kind: 'table', table: target },
    target.name,
    quoteIdent(alias),
    item.select,
  );
  const toOne = isToOne(relationship);
  const embed: EmbedNode = {
    relationship,
    node,
    outputName: item.alias ?? item.relation,
    inner: item.join === 'inner',
    spread: item.spread,
    hidden: item.select.length === 0,
    toOne,
    lateral: quoteIdent(`${alias}_lat`),
    spreadNames: item.spread ? outputNames(node) : [],
  };
  if (!toOne) node.limit = b.maxRows;
  return embed;
}

/** The keys a node contributes to its JSON object (for spreads). */
function outputNames(node: ReadNode): string[] {
  return node.select.flatMap((item) => {
    if (item.kind === 'column') return [item.outputName];
    if (item.kind === 'star') {
      const table = node.source.table;
      return table ? table.columns.map((c) => c.name) : [];
    }
    if (item.embed.hidden) return [];
    return item.embed.spread ? item.embed.spreadNames : [item.embed.outputName];
  });
}

const embedsOf = (node: ReadNode): EmbedNode[] =>
  node.select.flatMap((i) => (i.kind === 'embed' ? [i.embed] : []));

const embedNamed = (node: ReadNode, name: string): EmbedNode | undefined =>
  embedsOf(node).find((e) => e.outputName === name) ??
  embedsOf(node).find((e) => e.relationship.target.name === name);

const notEmbedded = (name: string): PostgrestError =>
  new PostgrestError(
    'PGRST108',
    400,
    `'${name}' is not an embedded resource in this request`,
    null,
    `Verify that '${name}' is included in the 'select' query parameter.`,
  );

/** The node an embed path (`a.b` of `a.b.col=eq.1`) refers to; PGRST108 when not embedded. */
function nodeAt(root: ReadNode, path: EmbedPath): ReadNode {
  let node = root;
  for (const segment of path) {
    const embed = embedNamed(node, segment);
    if (!embed) throw notEmbedded(segment);
    node = embed.node;
  }
  return node;
}

/** Attaches filters, order and limit/offset of every embed level to their nodes. */
function attachModifiers(b: TreeBuilder, root: ReadNode, topLevel: boolean): void {
  for (const { path, condition } of b.request.conditions) {
    if (path.length === 0 && !topLevel) continue;
    const node = nodeAt(root, path);
    node.conditions.push(planCondition(node, condition));
  }
  for (const { path, terms } of b.request.order) {
    const node = nodeAt(root, path);
    node.order = terms.map((t) => planOrder(b, node, t));
  }
  for (const { path, limit, offset } of b.request.ranges) {
    if (path.length === 0) continue;
    const node = nodeAt(root, path);
    if (limit !== undefined) node.limit = Math.min(limit, b.maxRows);
    if (offset !== undefined) node.offset = offset;
  }
}

function planCondition(node: ReadNode, condition: Condition): PlannedCondition {
  if (condition.type === 'logic') {
    return {
      type: 'logic',
      operator: condition.operator,
      negated: condition.negated,
      conditions: condition.conditions.map((c) => planCondition(node, c)),
    };
  }
  const { field, operation, negated } = condition;
  const embed = field.jsonPath.length === 0 ? embedNamed(node, field.name) : undefined;
  if (embed) {
    const isNullTest =
      operation.op === 'is' && (operation.value === 'null' || operation.value === 'not_null');
    if (!isNullTest) {
      throw new PostgrestError(
        'PGRST120',
        400,
        `Bad operator on the '${field.name}' embedded resource`,
        'Only is null or not is null filters are allowed on embedded resources',
      );
    }
    return { type: 'embed-null', embed, isNull: (operation.value === 'null') !== negated };
  }
  const table = node.source.table;
  const column = columnOf(table, field.name);
  return {
    type: 'filter',
    column: field.name,
    jsonPath: field.jsonPath,
    isJson: column !== undefined && JSON_TYPES.has(column.baseType),
    isTsvector: column?.baseType === 'tsvector',
    negated,
    operation,
  };
}

function planOrder(b: TreeBuilder, node: ReadNode, term: OrderTerm): PlannedOrder {
  const base = {
    column: term.field.name,
    jsonPath: term.field.jsonPath,
    ...(term.direction === undefined ? {} : { direction: term.direction }),
    ...(term.nulls === undefined ? {} : { nulls: term.nulls }),
  };
  if (term.relation === undefined) {
    return { ...base, isJson: isJsonColumn(node.source.table, term.field.name) };
  }
  const embed = embedNamed(node, term.relation);
  // PostgREST orders by a related column only through an embed of the request.
  if (!embed) throw notEmbedded(term.relation);
  const relationship = embed.relationship;
  if (!isToOne(relationship)) {
    throw new PostgrestError(
      'PGRST118',
      400,
      `A related order on '${term.relation}' is not possible`,
      `'${node.name}' and '${term.relation}' do not form a many-to-one or one-to-one relationship`,
    );
  }
  const relationTable = b.cache.tables.get(qualifiedKey(relationship.target));
  return {
    ...base,
    isJson: isJsonColumn(relationTable, term.field.name),
    relationship,
    ...(relationTable ? { relationTable } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Reads

function topRange(input: PlanInput): { limit?: number; offset: number } {
  const top = input.request.ranges.find((r) => r.path.length === 0);
  let offset = top?.offset ?? 0;
  let limit = top?.limit;
  const header = input.request.range;
  if (header) {
    const upperParam = limit === undefined ? Infinity : offset + limit - 1;
    const upper = Math.min(upperParam, header.to ?? Infinity);
    offset = Math.max(offset, header.from);
    limit = upper === Infinity ? undefined : Math.max(0, upper - offset + 1);
  }
  limit = limit === undefined ? input.maxRows : Math.min(limit, input.maxRows);
  return { limit, offset };
}

function newBuilder(input: PlanInput): TreeBuilder {
  return { cache: input.cache, request: input.request, maxRows: input.maxRows, aliases: new Map() };
}

function planRead(input: PlanInput, table: Table): ReadPlan {
  const media = negotiateMedia(input.accept);
  const b = newBuilder(input);
  const ref = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
  const root = buildNode(b, { kind: 'table', table }, table.name, ref, input.request.select);
  attachModifiers(b, root, true);
  const { limit, offset } = topRange(input);
  root.limit = limit;
  if (offset > 0) root.offset = offset;
  return {
    action: 'read',
    schema: input.schema,
    root,
    ...(input.request.preferences.count ? { count: input.request.preferences.count } : {}),
    head: input.method === 'HEAD',
    media,
    maxRows: input.maxRows,
  };
}

// ---------------------------------------------------------------------------------------------
// Writes

const unknownColumn = (table: Table, column: string): PostgrestError =>
  new PostgrestError(
    'PGRST204',
    400,
    `Could not find the '${column}' column of '${table.name}' in the schema cache`,
  );

function checkColumns(table: Table, columns: string[]): void {
  for (const column of columns) {
    if (!columnOf(table, column)) throw unknownColumn(table, column);
  }
}

function sameKeys(a: string[], b: Record<string, unknown>): boolean {
  const keys = Object.keys(b);
  return keys.length === a.length && keys.every((k) => a.includes(k));
}

/** Columns written: `columns=` when given, else the keys every row must share. */
function payloadColumns(
  input: PlanInput,
  table: Table,
  rows: Array<Record<string, unknown>>,
): string[] {
  const listed = input.request.columns;
  if (listed) {
    checkColumns(table, listed);
    return listed;
  }
  const first = rows[0];
  if (!first) return [];
  const keys = Object.keys(first);
  if (!rows.every((r) => sameKeys(keys, r))) {
    throw new PostgrestError('PGRST102', 400, 'All object keys must match');
  }
  checkColumns(table, keys);
  return keys;
}

function representation(input: PlanInput, table: Table): ReadNode | undefined {
  if (input.request.preferences.return !== 'representation') return undefined;
  const b = newBuilder(input);
  const root = buildNode(
    b,
    { kind: 'written', table },
    table.name,
    quoteIdent(table.name),
    input.request.select,
  );
  attachModifiers(b, root, false);
  return root;
}

function writeBase(input: PlanInput, table: Table, media: Media) {
  return {
    action: 'write' as const,
    schema: input.schema,
    table,
    ...(input.request.preferences.count ? { count: input.request.preferences.count } : {}),
    media,
  };
}

function topConditions(input: PlanInput, table: Table): PlannedCondition[] {
  const node: ReadNode = {
    source: { kind: 'table', table },
    ref: `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`,
    name: table.name,
    select: [],
    conditions: [],
    order: [],
  };
  return input.request.conditions
    .filter((c) => c.path.length === 0)
    .map((c) => planCondition(node, c.condition));
}

function planInsert(input: PlanInput, table: Table): WritePlan {
  const media = negotiateMedia(input.accept);
  const payload = parseTablePayload(input.body ?? {});
  const columns = payloadColumns(input, table, payload.rows);
  const prefs = input.request.preferences;
  const conflictColumns = input.request.onConflict ?? table.primaryKey;
  if (input.request.onConflict) checkColumns(table, input.request.onConflict);
  const returning = representation(input, table);
  return {
    ...writeBase(input, table, media),
    kind: 'insert',
    columns,
    payload: payload.json,
    missingDefault: prefs.missing === 'default',
    ...(prefs.resolution && conflictColumns.length > 0
      ? { onConflict: { columns: conflictColumns, resolution: prefs.resolution } }
      : {}),
    conditions: [],
    ...(returning ? { returning } : {}),
    ...(prefs.return === 'headers-only' && table.primaryKey.length > 0
      ? { locationKey: table.primaryKey }
      : {}),
  };
}

/** PATCH and DELETE must say which rows: an unfiltered one is refused (pg-safeupdate's rule). */
function requireFilter(conditions: PlannedCondition[], verb: 'UPDATE' | 'DELETE'): void {
  if (conditions.length > 0) return;
  throw new PostgrestError(
    '21000',
    400,
    `${verb} requires a WHERE clause`,
    null,
    'Add a filter to the request, for example ?id=eq.1',
  );
}

function planUpdate(input: PlanInput, table: Table): WritePlan {
  const media = negotiateMedia(input.accept);
  const payload = parseTablePayload(input.body ?? {});
  const row = payload.rows[0] ?? {};
  const columns = input.request.columns ?? Object.keys(row);
  checkColumns(table, columns);
  const conditions = topConditions(input, table);
  requireFilter(conditions, 'UPDATE');
  const returning = representation(input, table);
  return {
    ...writeBase(input, table, media),
    kind: 'update',
    columns,
    payload: payload.objectText ?? JSON.stringify(row),
    missingDefault: false,
    conditions,
    ...(returning ? { returning } : {}),
  };
}

function planDelete(input: PlanInput, table: Table): WritePlan {
  const media = negotiateMedia(input.accept);
  const conditions = topConditions(input, table);
  requireFilter(conditions, 'DELETE');
  const returning = representation(input, table);
  return {
    ...writeBase(input, table, media),
    kind: 'delete',
    columns: [],
    payload: '[]',
    missingDefault: false,
    conditions,
    ...(returning ? { returning } : {}),
  };
}

const PK_FILTERS_ONLY = "Filters must include all and only primary key columns with 'eq' operators";

/**
 * PUT: a single-row upsert. The filters must name every primary key column once with `eq`
 * (PGRST105), the body's key must equal them (PGRST115), and limit/offset are refused
 * (PGRST114). Only the first object of an array body is used.
 */
function planPut(input: PlanInput, table: Table): WritePlan {
  if (input.request.ranges.some((r) => r.path.length === 0)) {
    throw new PostgrestError(
      'PGRST114',
      400,
      'limit/offset querystring parameters are not allowed for PUT',
    );
  }
  const keyValues = new Map<string, string>();
  for (const { path, condition } of input.request.conditions) {
    const isKeyFilter =
      path.length === 0 &&
      condition.type === 'filter' &&
      !condition.negated &&
      condition.field.jsonPath.length === 0 &&
      condition.operation.op === 'eq' &&
      condition.operation.quantifier === undefined &&
      table.primaryKey.includes(condition.field.name) &&
      !keyValues.has(condition.field.name);
    if (!isKeyFilter) throw new PostgrestError('PGRST105', 405, PK_FILTERS_ONLY);
    keyValues.set(condition.field.name, (condition.operation as { value: string }).value);
  }
  if (table.primaryKey.length === 0 || keyValues.size !== table.primaryKey.length) {
    throw new PostgrestError('PGRST105', 405, PK_FILTERS_ONLY);
  }
  const media = negotiateMedia(input.accept);
  const payload = parseTablePayload(input.body ?? {});
  const row = payload.rows[0];
  if (!row) throw new PostgrestError('PGRST102', 400, 'Empty or invalid json');
  const matches = [...keyValues].every(
    ([k, v]) => row[k] !== undefined && row[k] !== null && String(row[k]) === v,
  );
  if (!matches) {
    throw new PostgrestError(
      'PGRST115',
      400,
      'Payload values do not match URL in primary key column(s)',
    );
  }
  const columns = input.request.columns ?? Object.keys(row);
  checkColumns(table, columns);
  const returning = representation(input, table);
  return {
    ...writeBase(input, table, media),
    kind: 'insert',
    columns,
    payload: payload.isArray ? JSON.stringify([row]) : payload.json,
    missingDefault: false,
    onConflict: { columns: table.primaryKey, resolution: 'merge-duplicates' },
    conditions: [],
    ...(returning ? { returning } : {}),
    put: true,
  };
}

// ---------------------------------------------------------------------------------------------
// RPC

function planCall(input: PlanInput, name: string): CallPlan {
  const method = input.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    throw new PostgrestError('PGRST101', 405, `Cannot use the ${method} method on RPC`);
  }
  const media = negotiateMedia(input.accept);
  const candidates = input.cache.functions.get(qualifiedKey({ schema: input.schema, name })) ?? [];
  let keys: string[];
  let payload: string | undefined;
  const getValues = new Map<string, string[]>();
  if (method === 'POST') {
    const body = parseRpcPayload(input.body ?? {});
    if ('raw' in body) {
      throw new PostgrestError('PGRST102', 400, `Content-Type not acceptable: ${body.mime}`);
    }
    keys = input.request.columns ?? Object.keys(body.args);
    payload = body.json;
  } else {
    for (const [key, value] of input.request.rpcArguments) {
      getValues.set(key, [...(getValues.get(key) ?? []), value]);
    }
    keys = [...getValues.keys()];
  }
  const names = [...input.cache.functions.values()]
    .flat()
    .filter((f) => f.schema === input.schema)
    .map((f) => f.name);
  const fn = chooseFunction(input.schema, name, candidates, keys, method === 'POST', names);
  const wholeBody =
    method === 'POST' && fn.params.length === 1 && fn.params[0]!.name === ''
      ? fn.params[0]
      : undefined;
  const args: CallArgument[] = wholeBody
    ? []
    : fn.params
        .filter((p) => keys.includes(p.name))
        .map((param) =>
          method === 'POST' ? { param } : { param, values: getValues.get(param.name) ?? [] },
        );
  const b = newBuilder(input);
  let root: ReadNode | undefined;
  if (fn.returns.kind === 'composite' || fn.returns.kind === 'record') {
    const source: NodeSource = fn.returns.table
      ? { kind: 'call', table: input.cache.tables.get(qualifiedKey(fn.returns.table)) }
      : { kind: 'call' };
    root = buildNode(b, source, fn.name, quoteIdent('pgrst_call'), input.request.select);
    attachModifiers(b, root, true);
    const { limit, offset } = topRange(input);
    root.limit = limit;
    if (offset > 0) root.offset = offset;
  }
  const scalarRange = !root && fn.returns.setOf ? topRange(input) : undefined;
  return {
    action: 'call',
    schema: input.schema,
    fn,
    ...(scalarRange ? { scalarRange } : {}),
    ...(payload === undefined ? {} : { payload }),
    ...(wholeBody ? { wholeBody } : {}),
    args,
    ...(root ? { root } : {}),
    readOnly: method !== 'POST' || fn.volatility !== 'volatile',
    ...(input.request.preferences.count ? { count: input.request.preferences.count } : {}),
    head: method === 'HEAD',
    media,
    maxRows: input.maxRows,
  };
}

const JSON_PARAM_TYPES = new Set(['json', 'jsonb']);

function chooseFunction(
  schema: string,
  name: string,
  candidates: FunctionDef[],
  keys: string[],
  post: boolean,
  known: string[],
): FunctionDef {
  const matches = candidates.filter((fn) => {
    const names = fn.params.map((p) => p.name);
    if (post && fn.params.length === 1 && fn.params[0]!.name === '') {
      return JSON_PARAM_TYPES.has(fn.params[0]!.type);
    }
    return (
      keys.every((k) => names.includes(k)) &&
      fn.params.every((p) => !p.required || keys.includes(p.name))
    );
  });
  // A function with named parameters that fit beats the whole-body fallback.
  const named = matches.filter((fn) => !(fn.params.length === 1 && fn.params[0]!.name === ''));
  const chosen = named.length > 0 ? named : matches;
  if (chosen.length === 1) return chosen[0]!;
  const qualified = `${schema}.${name}`;
  if (chosen.length === 0) {
    const sorted = [...keys].sort();
    const plural = sorted.length === 1 ? 'parameter' : 'parameters';
    const signature =
      sorted.length === 0
        ? `${qualified} without parameters`
        : `${qualified}(${sorted.join(', ')})`;
    const searched =
      sorted.length === 0
        ? `${qualified} without parameters`
        : `${qualified} with ${plural} ${sorted.join(', ')}`;
    const close = candidates.length === 0 ? closest(name, new Set(known)) : undefined;
    return throwNoFunction(signature, searched, post, close && `${schema}.${close}`);
  }
  const list = chosen
    .map((fn) => `${qualified}(${fn.params.map((p) => `${p.name} => ${p.type}`).join(', ')})`)
    .join(', ');
  throw new PostgrestError(
    'PGRST203',
    300,
    `Could not choose the best candidate function between: ${list}`,
    null,
    'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
  );
}

function throwNoFunction(
  signature: string,
  searched: string,
  post: boolean,
  suggestion: string | undefined,
): never {
  // Only a JSON POST can fall back to a single unnamed json/jsonb parameter.
  const fallback = post ? ' or with a single unnamed json/jsonb parameter' : '';
  throw new PostgrestError(
    'PGRST202',
    404,
    `Could not find the function ${signature} in the schema cache`,
    `Searched for the function ${searched}${fallback}, but no matches were found in the schema cache.`,
    suggestion === undefined ? null : `Perhaps you meant to call the function ${suggestion}`,
  );
}
