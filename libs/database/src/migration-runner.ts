import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ClientBase } from 'pg';
import { inTransaction } from './sql';

export type MigrationKind = 'control' | 'project';

export interface MigrationFile {
  name: string;
  checksum: string;
  sql: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

const FILE_PATTERN = /^\d{4}-[a-z0-9-]+\.sql$/;

/** Finds `prisma-free-migrations/` upwards from here, so it works from src/ and dist/. */
export function migrationsRoot(start = __dirname): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const candidate = join(dir, 'prisma-free-migrations');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new MigrationError('prisma-free-migrations/ not found');
  }
}

export function readMigrations(kind: MigrationKind, root = migrationsRoot()): MigrationFile[] {
  const dir = join(root, kind);
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return names.map((name) => {
    if (!FILE_PATTERN.test(name))
      throw new MigrationError(`Migration ${kind}/${name} must be named NNNN-verb-object.sql`);
    const sql = readFileSync(join(dir, name), 'utf8');
    return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

/** One digest of a whole migration set: equal digests mean equal schemas. */
export const migrationSetDigest = (files: MigrationFile[]): string =>
  createHash('sha256')
    .update(files.map((f) => `${f.name}:${f.checksum}`).join('\n'))
    .digest('hex')
    .slice(0, 16);

const TRACKING = {
  control: { schema: 'public', table: 'schema_migrations' },
  project: { schema: '_platform', table: 'migrations' },
} as const;

// Any constant works; it only has to be the same for every process migrating one database.
const MIGRATION_LOCK_KEY = 0x62617365; // "base"

/**
 * Applies pending migrations in order, each in its own transaction together with its
 * record, under a session advisory lock so concurrent boots apply each file once.
 * An applied file whose checksum changed is refused: migrations are forward-only.
 */
export async function runMigrations(
  client: ClientBase,
  kind: MigrationKind,
  files = readMigrations(kind),
): Promise<string[]> {
  const { schema, table } = TRACKING[kind];
  const tracking = `"${schema}"."${table}"`;
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    // Project migrations run as a superuser inside databases whose `public` the tenant
    // owns: nothing may resolve through a tenant-writable schema, so every name in them
    // is schema-qualified and the path holds pg_catalog alone. They must also never write
    // to tenant-owned tables, whose triggers would run with superuser rights.
    if (kind === 'project') await client.query("SELECT set_config('search_path', '', false)");
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${tracking} (
         name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT ${table}_pkey PRIMARY KEY (name))`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(
      `SELECT name, checksum FROM ${tracking}`,
    );
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const file of files) {
      const previous = applied.get(file.name);
      if (previous !== undefined) {
        if (previous !== file.checksum) {
          throw new MigrationError(
            `Migration ${kind}/${file.name} was edited after it was applied (checksum ${previous.slice(0, 12)} is now ${file.checksum.slice(0, 12)}); add a new migration instead`,
          );
        }
        continue;
      }
      try {
        await inTransaction(client, async () => {
          await client.query(file.sql);
          await client.query(`INSERT INTO ${tracking} (name, checksum) VALUES ($1, $2)`, [
            file.name,
            file.checksum,
          ]);
        });
      } catch (e) {
        throw new MigrationError(`Migration ${kind}/${file.name} failed: ${(e as Error).message}`);
      }
      done.push(file.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}
