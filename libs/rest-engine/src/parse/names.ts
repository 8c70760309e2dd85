import type { Field, JsonStep } from './ast';
import type { Cursor } from './cursor';

/** Parsec's wording, reused so our details read like PostgREST's. */
export const FIELD_NAME_EXPECTED = 'field name (* or [a..z0..9_$])';

// PostgREST identifiers: Unicode letters, ASCII digits, `_`, space and `$` (then trimmed).
const IDENT = /[\p{L}0-9_ $]+/uy;
const IDENT_CHAR = /[\p{L}0-9_ $]/u;
const INDEX = /-?[0-9]+/y;

export function isIdentChar(ch: string): boolean {
  return ch !== '' && IDENT_CHAR.test(ch);
}

/** Whether a field name can start here (quoted or bare). */
export function atFieldName(c: Cursor): boolean {
  return c.peek() === '"' || isIdentChar(c.peek());
}

/**
 * Scans `"..."` at `pos` where a backslash escapes the next character. Returns undefined when
 * the quote is not closed, so callers that fall back to a raw value (in-lists) can do so.
 */
export function scanQuoted(text: string, pos: number): { value: string; end: number } | undefined {
  if (text.charAt(pos) !== '"') return undefined;
  let value = '';
  for (let i = pos + 1; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '"') return { value, end: i + 1 };
    if (ch === '\\') {
      i++;
      if (i >= text.length) return undefined;
      value += text.charAt(i);
    } else {
      value += ch;
    }
  }
  return undefined;
}

export function parseQuoted(c: Cursor): string {
  const scanned = scanQuoted(c.text, c.pos);
  if (!scanned) c.fail('"\\"" (closing quote)', c.text.length);
  c.pos = scanned.end;
  return scanned.value;
}

/** `"quoted"` or identifiers joined by `-` (a `-` followed by `>` starts a JSON arrow instead). */
export function parseFieldName(c: Cursor, expecting = FIELD_NAME_EXPECTED): string {
  if (c.peek() === '"') return parseQuoted(c);
  const parts: string[] = [];
  for (;;) {
    const start = c.pos;
    const ident = c.match(IDENT)?.trim();
    if (!ident) c.fail(expecting, start);
    parts.push(ident);
    if (c.peek() !== '-' || c.peek(1) === '>') return parts.join('-');
    c.pos++;
  }
}

function parseJsonOperand(c: Cursor): string | number {
  const start = c.pos;
  if (c.peek() === '-') {
    const digits = c.match(INDEX);
    if (digits === undefined || isIdentChar(c.peek())) c.fail('JSON array index', start);
    return toIndex(c, digits, start);
  }
  const quoted = c.peek() === '"';
  const key = parseFieldName(c, 'JSON key or array index');
  return !quoted && /^[0-9]+$/.test(key) ? toIndex(c, key, start) : key;
}

function toIndex(c: Cursor, digits: string, start: number): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) c.failWith('JSON array index out of range', start);
  return n;
}

export function parseJsonPath(c: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    // `->>` must be tried before `->`.
    const arrow = c.eat('->>') ? '->>' : c.eat('->') ? '->' : undefined;
    if (!arrow) return steps;
    steps.push({ arrow, key: parseJsonOperand(c) });
  }
}

export function parseField(c: Cursor): Field {
  const name = parseFieldName(c);
  return { name, jsonPath: parseJsonPath(c) };
}

/** `a.b.c`: names separated by dots (a name containing a dot must be quoted). */
export function parseDottedNames(c: Cursor): string[] {
  const names = [parseFieldName(c)];
  while (c.eat('.')) names.push(parseFieldName(c));
  return names;
}
