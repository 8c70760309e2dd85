import type { EmbedPath, ParsedRequest, ScopedCondition, ScopedOrder, ScopedRange } from './ast';
import { Cursor } from './cursor';
import { parseLogicParam } from './logic.parser';
import { parseDottedNames, parseJsonPath } from './names';
import { parseOpExpr, restOfInput } from './operation.parser';
import { parseColumnList, parseOrder } from './order.parser';
import { parsePreferences } from './prefer.parser';
import { parseCount, parseRangeHeader } from './range.parser';
import { parseSelect } from './select.parser';
import { PostgrestError } from '../postgrest-error';

export interface ParseInput {
  /** Decoded query params in order (see decodeQueryString); repeated keys are all kept. */
  params: ReadonlyArray<readonly [string, string]>;
  headers?: { prefer?: string | readonly string[]; range?: string };
  /** HTTP method; the Range header is honoured only for GET. Defaults to GET. */
  method?: string;
  /** GET/HEAD on /rpc: a param whose value is not `op.value` is a function argument. */
  rpc?: boolean;
}

const RESERVED = ['select', 'columns', 'on_conflict'];
const EMBEDDABLE = ['order', 'limit', 'offset', 'and', 'or'];

/** Parses query params and headers into the request AST; throws PostgrestError on bad input. */
export function parseRequest(input: ParseInput): ParsedRequest {
  const state = newRequest(input);
  for (const [key, value] of input.params) {
    if (RESERVED.includes(key)) parseReserved(state, key, value);
    else if (EMBEDDABLE.includes(lastSegment(key))) parseEmbeddable(state, key, value);
    else parseFilterParam(state.request, key, value, input.rpc === true);
  }
  const { request } = state;
  request.order = [...state.orders.values()];
  request.ranges = [...state.ranges.values()];
  return request;
}

interface State {
  request: ParsedRequest;
  seen: Set<string>;
  orders: Map<string, ScopedOrder>;
  ranges: Map<string, ScopedRange>;
}

function newRequest(input: ParseInput): State {
  const method = (input.method ?? 'GET').toUpperCase();
  const request: ParsedRequest = {
    select: [{ type: 'star' }],
    conditions: [],
    order: [],
    ranges: [],
    preferences: parsePreferences(input.headers?.prefer),
    rpcArguments: [],
  };
  // RFC 9110: Range only applies to GET (PostgREST ignores it for HEAD and writes).
  const range = method === 'GET' ? parseRangeHeader(input.headers?.range) : undefined;
  if (range) request.range = range;
  return { request, seen: new Set(), orders: new Map(), ranges: new Map() };
}

// PostgREST splits on every dot, quoted or not; a key's last segment decides what it is.
function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1);
}

/** `select`, `columns`, `on_conflict`: the first occurrence wins (PostgREST's lookup). */
function parseReserved(state: State, key: string, value: string): void {
  if (state.seen.has(key)) return;
  state.seen.add(key);
  if (key === 'select') state.request.select = parseSelect(value);
  else if (key === 'columns') state.request.columns = parseColumnList(value, 'columns');
  else state.request.onConflict = parseColumnList(value, 'on_conflict');
}

/** Embed path and last word of `a.b.order`, `rel.not.or`, ... */
function parseKeyPath(key: string): { path: EmbedPath; last: string; negated: boolean } {
  const c = new Cursor(key, 'tree path');
  const names = parseDottedNames(c);
  if (!c.atEnd) c.fail('"." or end of input');
  const last = names.pop() as string;
  return { path: names.filter((n) => n !== 'not'), last, negated: names.includes('not') };
}

function parseEmbeddable(state: State, key: string, value: string): void {
  const { path, last, negated } = parseKeyPath(key);
  // Keyed by path: a repeated order/limit/offset for the same embed replaces the earlier one.
  const id = JSON.stringify(path);
  if (last === 'and' || last === 'or') {
    state.request.conditions.push({ path, condition: parseLogicParam(last, negated, value) });
  } else if (last === 'order') {
    state.orders.set(id, { path, terms: parseOrder(value) });
  } else {
    const count = parseCount(last as 'limit' | 'offset', value);
    if (count === undefined) return;
    const range = state.ranges.get(id) ?? { path };
    range[last as 'limit' | 'offset'] = count;
    state.ranges.set(id, range);
  }
}

function parseFilterParam(request: ParsedRequest, key: string, value: string, rpc: boolean): void {
  const keyCursor = new Cursor(key, 'tree path');
  const path = parseDottedNames(keyCursor);
  const jsonPath = parseJsonPath(keyCursor);
  if (!keyCursor.atEnd) keyCursor.fail('"." , "->" or end of input');
  const name = path.pop() as string;
  let expr;
  try {
    expr = parseOpExpr(new Cursor(value, 'filter'), restOfInput);
  } catch (error) {
    // On GET RPC a value that is not `op.value` is an argument (`?a=1`), not an error.
    if (!(rpc && error instanceof PostgrestError && path.length === 0)) throw error;
    request.rpcArguments.push([key, value]);
    return;
  }
  const condition: ScopedCondition['condition'] = {
    type: 'filter',
    field: { name, jsonPath },
    ...expr,
  };
  request.conditions.push({ path, condition });
}
