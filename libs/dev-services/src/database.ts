import { quoteIdent, withClient } from '@baseplate/database';
import { Client } from 'pg';

/** Creates `name` on the server behind `adminUrl` unless it exists. Returns true if created. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<boolean> {
  return withClient(adminUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (e) {
      // Lost a race with another process creating it: the database exists, which is the goal.
      if ((e as { code?: string }).code === '42P04') return false;
      throw e;
    }
  });
}

/**
 * True when `url` answers and its role may create databases and roles (what the platform
 * needs of its admin connection). A refused or slow server counts as "no".
 */
export async function isUsableAdmin(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ ok: boolean }>(
      'SELECT rolsuper OR (rolcreatedb AND rolcreaterole) AS ok FROM pg_roles WHERE rolname = current_user',
    );
    return rows[0]?.ok === true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
