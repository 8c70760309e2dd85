import type { AggregateFunction, ColumnItem, EmbedItem, JoinType, SelectItem } from './ast';
import { Cursor } from './cursor';
import { FIELD_NAME_EXPECTED, atFieldName, parseFieldName, parseJsonPath } from './names';
import { PostgrestError } from '../postgrest-error';

const CAST_TYPE = /[\p{L}0-9_ $]+/uy;
const AGGREGATES: readonly string[] = ['sum', 'avg', 'count', 'max', 'min'];
const ITEM_END = '"," or end of input';

/** Parses `select=`. An empty value means `*`, as in PostgREST. */
export function parseSelect(value: string): SelectItem[] {
  const c = new Cursor(value, 'select parameter');
  c.skipSpaces();
  if (c.atEnd) return [{ type: 'star' }];
  const items = parseItems(c, 0);
  if (!c.atEnd) c.fail(ITEM_END);
  return items;
}

function parseItems(c: Cursor, depth: number): SelectItem[] {
  const items = [parseItem(c, depth)];
  c.skipSpaces();
  while (c.eat(',')) {
    c.skipSpaces();
    items.push(parseItem(c, depth));
    c.skipSpaces();
  }
  return items;
}

function parseItem(c: Cursor, depth: number): SelectItem {
  if (c.eat('*')) return { type: 'star' };
  if (c.eat('...')) return parseEmbed(c, parseFieldName(c), undefined, true, depth);
  const alias = parseAlias(c);
  if (c.eat('count()')) return { type: 'count', alias, cast: parseCast(c) };
  if (!atFieldName(c)) c.fail(`"*", "..." or ${FIELD_NAME_EXPECTED}`);
  const name = parseFieldName(c);
  if (c.peek() === '!' || c.peek() === '(') return parseEmbed(c, name, alias, false, depth);
  const item: ColumnItem = { type: 'column', field: { name, jsonPath: parseJsonPath(c) } };
  if (alias !== undefined) item.alias = alias;
  const cast = parseCast(c);
  if (cast !== undefined) item.cast = cast;
  if (c.eat('.')) item.aggregate = parseAggregate(c);
  return item;
}

/** `alias:` is a name followed by one colon; `col::type` is a cast, so it is not an alias. */
function parseAlias(c: Cursor): string | undefined {
  if (!atFieldName(c)) return undefined;
  const start = c.pos;
  try {
    const name = parseFieldName(c);
    if (c.peek() === ':' && c.peek(1) !== ':') {
      c.pos++;
      return name;
    }
  } catch (error) {
    if (!(error instanceof PostgrestError)) throw error;
  }
  c.pos = start;
  return undefined;
}

function parseCast(c: Cursor): string | undefined {
  if (!c.eat('::')) return undefined;
  const start = c.pos;
  const type = c.match(CAST_TYPE)?.trim();
  // The type is emitted unquoted by the builder, hence the narrow alphabet (no `[]`, no quotes).
  if (!type) c.fail('cast type ([a..z0..9_ $])', start);
  return type;
}

function parseAggregate(c: Cursor): { fn: AggregateFunction; cast?: string } {
  const start = c.pos;
  const fn = c.match(/[a-z]+/y);
  if (fn === undefined || !AGGREGATES.includes(fn) || !c.eat('()')) {
    c.fail('aggregate function (sum(), avg(), count(), max(), min())', start);
  }
  const cast = parseCast(c);
  return cast === undefined
    ? { fn: fn as AggregateFunction }
    : { fn: fn as AggregateFunction, cast };
}

function parseEmbed(
  c: Cursor,
  relation: string,
  alias: string | undefined,
  spread: boolean,
  depth: number,
): EmbedItem {
  const embed: EmbedItem = { type: 'embed', relation, spread, select: [] };
  if (alias !== undefined) embed.alias = alias;
  // Up to two `!param`; as in PostgREST the first hint and the first join type win.
  for (let i = 0; i < 2 && c.eat('!'); i++) {
    const param = parseFieldName(c, 'embed hint, "inner" or "left"');
    if (param === 'inner' || param === 'left') embed.join ??= param as JoinType;
    else embed.hint ??= param;
  }
  c.expect('(');
  c.guardDepth(depth + 1);
  c.skipSpaces();
  if (!c.eat(')')) {
    embed.select = parseItems(c, depth + 1);
    c.expect(')', '"," or ")"');
  }
  return embed;
}
