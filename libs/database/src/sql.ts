import type { ClientBase } from 'pg';

/**
 * The one identifier-quoting helper. Values are never quoted by hand: they are bind
 * parameters. Identifiers (and the rare literal Postgres cannot bind, such as a role
 * password in CREATE ROLE) go through these.
 */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.includes('\0')) throw new Error('Invalid SQL identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('Invalid SQL literal');
  const escaped = value.replace(/'/g, "''");
  // Same rule as pg's escapeLiteral: backslashes force the E'' form, where they are doubled.
  return value.includes('\\') ? `E'${escaped.replace(/\\/g, '\\\\')}'` : `'${escaped}'`;
}

/** The same PostgreSQL server, another database (and optionally another user). */
export function connectionUrl(
  baseUrl: string,
  database: string,
  user?: { name: string; password: string },
): string {
  const url = new URL(baseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  if (user) {
    url.username = encodeURIComponent(user.name);
    url.password = encodeURIComponent(user.password);
  }
  return url.toString();
}

export const databaseNameOf = (url: string): string =>
  decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';

/**
 * Runs `fn` between BEGIN and COMMIT on one client; any error rolls back and is rethrown
 * as it was (a failing ROLLBACK, on a dropped connection, must not mask it).
 */
export async function inTransaction<T>(client: ClientBase, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
