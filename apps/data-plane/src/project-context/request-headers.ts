import type { IncomingHttpHeaders } from 'node:http';

/**
 * The `request.headers` setting as PostgREST builds it: lower-cased names, every header
 * but Cookie (policies may read e.g. `x-client-info`), repeated values joined.
 */
export function requestHeadersForSql(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (key === 'cookie' || value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
