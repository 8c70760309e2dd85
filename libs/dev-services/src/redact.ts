/**
 * `host:port/database` of a connection URL: what start-up may print. The URL itself
 * carries a password and never reaches a log.
 */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = decodeURIComponent(parsed.pathname.slice(1)) || 'postgres';
    return `${parsed.hostname}:${parsed.port || '5432'}/${database}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** `host:port` of a Redis URL, without the password a rediss:// URL may hold. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return '(unparseable URL)';
  }
}
