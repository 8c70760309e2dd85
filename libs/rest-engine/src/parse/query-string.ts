/**
 * Splits a raw query string into ordered, decoded [key, value] pairs the way PostgREST does:
 * `+` is a space, repeated keys are kept in order, dotted keys stay literal, and params without
 * `=` (`?foo`) are dropped. Express's `qs` must not be used: it nests dotted and repeated keys.
 */
export function decodeQueryString(raw: string): Array<[string, string]> {
  const query = raw.startsWith('?') ? raw.slice(1) : raw;
  const pairs: Array<[string, string]> = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    pairs.push([decodeComponent(part.slice(0, eq)), decodeComponent(part.slice(eq + 1))]);
  }
  return pairs;
}

/** Malformed percent sequences are kept as written: a bad URL must be a 400 later, not a throw. */
function decodeComponent(s: string): string {
  return s.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
