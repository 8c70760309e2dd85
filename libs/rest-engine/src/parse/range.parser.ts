import type { RangeHeader } from './ast';
import { PostgrestErrors } from '../postgrest-error';

const RANGE = /^([0-9]+)-([0-9]*)$/;

/** Huge numbers clamp rather than fail: the row cap bounds every read anyway. */
function toCount(digits: string): number {
  return Math.min(Number(digits), Number.MAX_SAFE_INTEGER);
}

/**
 * The `Range: from-[to]` header. Anything not matching PostgREST's regex (`items=0-9` included)
 * is ignored; from > to is PGRST103 (416).
 */
export function parseRangeHeader(value: string | undefined): RangeHeader | undefined {
  const m = value === undefined ? null : RANGE.exec(value.trim());
  if (!m) return undefined;
  const from = toCount(m[1]);
  if (m[2] === '') return { from };
  const to = toCount(m[2]);
  if (from > to) {
    throw PostgrestErrors.invalidRange(
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    );
  }
  return { from, to };
}

/**
 * `limit=` / `offset=` values. Non-numeric values are silently ignored, as in PostgREST; a
 * negative limit is PGRST103. A negative offset is refused the same way (our choice: Postgres
 * would reject `OFFSET -1` later with a less helpful error).
 */
export function parseCount(param: 'limit' | 'offset', value: string): number | undefined {
  if (!/^-?[0-9]+$/.test(value)) return undefined;
  if (value.startsWith('-') && /[1-9]/.test(value)) {
    const name = param === 'limit' ? 'Limit' : 'Offset';
    throw PostgrestErrors.invalidRange(`${name} should be greater than or equal to zero.`);
  }
  return toCount(value.replace('-', ''));
}
