import type { OrderTerm } from './ast';
import { Cursor } from './cursor';
import { parseField, parseFieldName, parseJsonPath } from './names';

const TERM_END = '"," or end of input';

/** `order=col.desc.nullslast,data->>k,rel(col).asc` */
export function parseOrder(value: string): OrderTerm[] {
  const c = new Cursor(value, 'order');
  const terms = [parseTerm(c)];
  while (c.eat(',')) {
    c.skipSpaces();
    terms.push(parseTerm(c));
  }
  if (!c.atEnd) c.fail(TERM_END);
  return terms;
}

function parseTerm(c: Cursor): OrderTerm {
  const name = parseFieldName(c);
  let term: OrderTerm;
  if (c.eat('(')) {
    // `rel(col)`: a column of a to-one embed; the plan stage checks the cardinality (PGRST118).
    term = { relation: name, field: parseField(c) };
    c.expect(')');
  } else {
    term = { field: { name, jsonPath: parseJsonPath(c) } };
  }
  if (eatModifier(c, '.asc')) term.direction = 'asc';
  else if (eatModifier(c, '.desc')) term.direction = 'desc';
  if (eatModifier(c, '.nullsfirst')) term.nulls = 'first';
  else if (eatModifier(c, '.nullslast')) term.nulls = 'last';
  c.skipSpaces();
  if (!c.atEnd && c.peek() !== ',') {
    c.fail(c.peek() === '.' ? 'asc, desc, nullsfirst or nullslast' : TERM_END);
  }
  return term;
}

/** Eats `.word` only as a whole word, so `.ascending` is not read as `.asc`. */
function eatModifier(c: Cursor, word: string): boolean {
  if (!c.startsWith(word)) return false;
  const next = c.text.charAt(c.pos + word.length);
  if (next !== '' && next !== '.' && next !== ',' && next !== ' ') return false;
  c.pos += word.length;
  return true;
}

/** `columns=` and `on_conflict=`: comma-separated names. */
export function parseColumnList(value: string, param: 'columns' | 'on_conflict'): string[] {
  const c = new Cursor(value, `${param} parameter`);
  c.skipSpaces();
  const names = [parseFieldName(c)];
  c.skipSpaces();
  while (c.eat(',')) {
    c.skipSpaces();
    names.push(parseFieldName(c));
    c.skipSpaces();
  }
  if (!c.atEnd) c.fail(TERM_END);
  return names;
}
