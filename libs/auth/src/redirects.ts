/**
 * Where an email link may send the user afterwards (GoTrue's rule): a URL on the host of the
 * project's `site_url`, or one matching an entry of its `uri_allow_list` (exact URLs or
 * globs: `*` stays within one host label or path segment, `**` crosses them,
 * `?` is one such character). Anything else falls back to `site_url`, so a link can never
 * deliver a session to a site the project did not name.
 */
export function safeRedirect(
  candidate: unknown,
  siteUrl: string,
  allowList: readonly string[],
): string {
  if (typeof candidate !== 'string' || candidate === '' || candidate.length > 2048) return siteUrl;
  // Whitespace, control characters and backslashes are refused (browsers read `\` as `/`).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s\\]/.test(candidate)) return siteUrl;
  let target: URL;
  try {
    target = new URL(candidate);
  } catch {
    return siteUrl;
  }
  if (target.protocol === 'javascript:' || target.protocol === 'data:') return siteUrl;
  try {
    const site = new URL(siteUrl);
    if (site.hostname !== '' && site.hostname === target.hostname) return candidate;
  } catch {
    // An unparsable site_url allows nothing by host; the list may still match.
  }
  // Globs are matched against the parsed URL (host normalised, `?` and `#` where they really
  // are), never the raw string: `https://10.0.0.1?.example.com` is host 10.0.0.1.
  if (target.username !== '' || target.password !== '') return siteUrl;
  const normalised = target.href;
  const patterns = allowList.map((p) => p.trim()).filter((p) => p !== '');
  return patterns.some((p) => p === candidate || globMatches(p, normalised)) ? normalised : siteUrl;
}

/**
 * A uri_allow_list glob against a URL (GoTrue's gobwas globs, separators `.` and `/`): `*`
 * and `?` stay within a host label or path segment, `**` crosses them.
 */
export function globMatches(pattern: string, value: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') {
      // Within one host label or path segment: never across `.` `/`, nor into a query,
      // fragment, port or userinfo.
      source += '[^./?#@:\\[\\]]*';
    } else if (c === '?') {
      source += '[^./?#@:\\[\\]]';
    } else {
      source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 's').test(value);
}
