import type { Condition, LogicTree } from './ast';
import { Cursor } from './cursor';
import { FIELD_NAME_EXPECTED, atFieldName, parseField } from './names';
import { parseOpExpr, readQuotedToken, readRawToken, type ValueReader } from './operation.parser';

const LOGIC_AHEAD = /(not\.)?(and|or)[ \t]*\(/y;
const CONDITION_EXPECTED = `${FIELD_NAME_EXPECTED}, negation operator (not) or logic operator (and, or)`;

/**
 * Parses the value of an `or=` / `and=` / `not.or=` param. PostgREST parses the operator and the
 * value as one string (`or(a.eq.1)`), so error columns count the operator too.
 */
export function parseLogicParam(
  operator: 'and' | 'or',
  negated: boolean,
  value: string,
): LogicTree {
  const c = new Cursor(`${negated ? 'not.' : ''}${operator}${value}`, 'logic tree', value);
  // Like PostgREST, anything after the closing parenthesis is ignored.
  return parseLogicTree(c, 0);
}

function parseLogicTree(c: Cursor, depth: number): LogicTree {
  c.guardDepth(depth);
  const negated = c.eat('not.');
  const operator = c.eat('and') ? 'and' : c.eat('or') ? 'or' : c.fail('logic operator (and, or)');
  c.skipSpaces();
  c.expect('(');
  c.skipSpaces();
  const conditions = [parseCondition(c, depth)];
  while (c.eat(',')) {
    c.skipSpaces();
    conditions.push(parseCondition(c, depth));
  }
  c.expect(')', '"," or ")"');
  c.skipSpaces();
  return { type: 'logic', operator, negated, conditions };
}

function parseCondition(c: Cursor, depth: number): Condition {
  LOGIC_AHEAD.lastIndex = c.pos;
  if (LOGIC_AHEAD.test(c.text)) return parseLogicTree(c, depth + 1);
  if (!atFieldName(c)) c.fail(CONDITION_EXPECTED);
  const field = parseField(c);
  c.expect('.');
  return { type: 'filter', field, ...parseOpExpr(c, readTreeValue) };
}

/** Inside trees a value ends at `,` or `)` unless quoted or a `{...}` array literal. */
const readTreeValue: ValueReader = (c) => {
  const quoted = readQuotedToken(c);
  if (quoted !== undefined) return quoted;
  if (c.peek() === '{') {
    const close = c.text.indexOf('}', c.pos);
    const inner = close < 0 ? undefined : c.text.slice(c.pos, close + 1);
    if (inner !== undefined && !inner.slice(1).includes('{')) {
      c.pos = close + 1;
      return inner;
    }
  }
  return readRawToken(c);
};
