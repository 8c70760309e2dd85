import type {
  FtsOperator,
  IsValue,
  OpExpr,
  Operation,
  QuantOperator,
  Quantifier,
  SimpleOperator,
} from './ast';
import { Cursor } from './cursor';
import { scanQuoted } from './names';

/** Reads the value after `op.`: the rest of the string at top level, a bounded token in trees. */
export type ValueReader = (c: Cursor) => string;

const QUANT_OPS: readonly string[] = [
  'eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
];
const SIMPLE_OPS: readonly string[] = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];
const FTS_OPS: readonly string[] = ['fts', 'plfts', 'phfts', 'wfts'];
const IS_VALUES: readonly string[] = ['null', 'not_null', 'true', 'false', 'unknown'];
export const OPERATOR_EXPECTED = 'operator (eq, gt, ...)';

/** Top-level filter values are verbatim: commas and parentheses need no quoting there. */
export const restOfInput: ValueReader = (c) => {
  const value = c.text.slice(c.pos);
  c.pos = c.text.length;
  return value;
};

/** `[not.]op[(modifier)].value`, shared by `col=...` filters and logic-tree conditions. */
export function parseOpExpr(c: Cursor, readValue: ValueReader): OpExpr {
  const negated = c.eat('not.');
  return { negated, operation: parseOperation(c, readValue) };
}

function parseOperation(c: Cursor, readValue: ValueReader): Operation {
  const start = c.pos;
  const op = c.match(/[a-z]+/y) ?? '';
  if (op === 'in') return { op, values: afterDot(c, parseList) };
  if (op === 'is') return { op, value: afterDot(c, (v) => parseIsValue(v, readValue)) };
  if (op === 'isdistinct') return { op, value: afterDot(c, readValue) };
  if (SIMPLE_OPS.includes(op)) return { op: op as SimpleOperator, value: afterDot(c, readValue) };
  if (QUANT_OPS.includes(op)) {
    const quantifier = parseQuantifier(c);
    const operation = { op: op as QuantOperator, value: afterDot(c, readValue) };
    return quantifier ? { ...operation, quantifier } : operation;
  }
  if (FTS_OPS.includes(op)) {
    const config = parseFtsConfig(c);
    const operation = { op: op as FtsOperator, value: afterDot(c, readValue) };
    return config ? { ...operation, config } : operation;
  }
  c.fail(`"not" or ${OPERATOR_EXPECTED}`, start);
}

function afterDot<T>(c: Cursor, read: (c: Cursor) => T): T {
  c.expect('.');
  return read(c);
}

function parseQuantifier(c: Cursor): Quantifier | undefined {
  if (c.eat('(any)')) return 'any';
  if (c.eat('(all)')) return 'all';
  if (c.peek() === '(') c.fail('"(any)" or "(all)"');
  return undefined;
}

function parseFtsConfig(c: Cursor): string | undefined {
  if (!c.eat('(')) return undefined;
  const start = c.pos;
  const config = c.match(/[\p{L}0-9_]+/uy);
  if (config === undefined) c.fail('text search configuration ([a..z0..9_])', start);
  c.expect(')');
  return config;
}

function parseIsValue(c: Cursor, readValue: ValueReader): IsValue {
  const start = c.pos;
  const value = readValue(c).toLowerCase();
  if (!IS_VALUES.includes(value)) {
    c.fail('null or trilean value (unknown, true, false) or not_null', start);
  }
  return value as IsValue;
}

/** Whether a quoted value ends here: Parsec's `notFollowedBy (noneOf ",)")`. */
function quotedEndsAt(text: string, end: number): boolean {
  return end >= text.length || text.charAt(end) === ',' || text.charAt(end) === ')';
}

/** A quoted token if it is followed by `,` `)` or the end; otherwise undefined (read it raw). */
export function readQuotedToken(c: Cursor): string | undefined {
  const scanned = scanQuoted(c.text, c.pos);
  if (!scanned || !quotedEndsAt(c.text, scanned.end)) return undefined;
  c.pos = scanned.end;
  return scanned.value;
}

/** Raw characters up to `,` or `)`, kept as sent (spaces included). */
export function readRawToken(c: Cursor): string {
  const start = c.pos;
  while (!c.atEnd && c.peek() !== ',' && c.peek() !== ')') c.pos++;
  return c.text.slice(start, c.pos);
}

/** `(a,"b,c",d)`: `in.()` is the empty list, which the builder turns into `= ANY('{}')`. */
export function parseList(c: Cursor): string[] {
  c.expect('(');
  c.skipSpaces();
  if (c.eat(')')) return [];
  const values: string[] = [];
  do values.push(readQuotedToken(c) ?? readRawToken(c));
  while (c.eat(','));
  c.expect(')', '"," or ")"');
  c.skipSpaces();
  return values;
}
