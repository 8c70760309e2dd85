import type { Preferences } from './ast';
import { PostgrestErrors } from '../postgrest-error';

type EnumKey = 'return' | 'count' | 'resolution' | 'missing' | 'handling' | 'tx';

const ENUMS: Record<EnumKey, readonly string[]> = {
  return: ['minimal', 'headers-only', 'representation'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  handling: ['lenient', 'strict'],
  tx: ['commit', 'rollback'],
};

function isEnumKey(key: string): key is EnumKey {
  return Object.prototype.hasOwnProperty.call(ENUMS, key);
}

/**
 * `Prefer` headers: comma-separated tokens across every header, trimmed, first occurrence of
 * each preference wins. Unknown or malformed tokens are ignored, unless `handling=strict`,
 * where PostgREST refuses the request (PGRST122).
 */
export function parsePreferences(headers: string | readonly string[] | undefined): Preferences {
  const list = headers === undefined ? [] : typeof headers === 'string' ? [headers] : headers;
  const tokens = list.flatMap((h) => h.split(',')).map((t) => t.trim());
  const prefs: Preferences = { invalid: [] };
  for (const token of tokens.filter((t) => t !== '')) {
    if (!applyToken(prefs, token)) prefs.invalid.push(token);
  }
  if (prefs.handling === 'strict' && prefs.invalid.length > 0) {
    throw PostgrestErrors.invalidPreferences(prefs.invalid);
  }
  return prefs;
}

/** Returns false when the token is not a valid preference. */
function applyToken(prefs: Preferences, token: string): boolean {
  const eq = token.indexOf('=');
  if (eq < 0) return false;
  const key = token.slice(0, eq).trim();
  const value = token.slice(eq + 1).trim();
  if (isEnumKey(key)) {
    if (!ENUMS[key].includes(value)) return false;
    // Each branch narrows to the key's literal union; the table above is the validation.
    (prefs as unknown as Record<string, string>)[key] ??= value;
    return true;
  }
  if (key === 'timezone' && value !== '') {
    prefs.timezone ??= value;
    return true;
  }
  if (key === 'max-affected' && /^[0-9]+$/.test(value) && Number.isSafeInteger(Number(value))) {
    prefs.maxAffected ??= Number(value);
    return true;
  }
  return false;
}
