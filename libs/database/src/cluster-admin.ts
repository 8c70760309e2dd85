import { Client, ClientBase } from 'pg';
import { MigrationFile, readMigrations, runMigrations } from './migration-runner';
import { connectionUrl, inTransaction, quoteIdent, quoteLiteral } from './sql';

/**
 * Cluster-level provisioning: the shared API roles, the project template database, and
 * per-project databases and admin roles. Every function is idempotent, so a job retried
 * after a crash finishes the work or finds it done.
 */
export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof API_ROLES)[number];
export const AUTHENTICATOR_ROLE = 'authenticator';
/** Owner of the auth service's writes to the `auth` schema (see createClusterRoles). */
export const AUTH_ADMIN_ROLE = 'auth_admin';

export const projectDbName = (ref: string): string => `proj_${ref}`;
export const adminRoleName = (ref: string): string => `${ref}_admin`;

// Serialises everything that connects to, copies or changes the template database:
// CREATE DATABASE ... TEMPLATE fails while any other session is connected to it.
const TEMPLATE_LOCK_KEY = 0x74706c; // "tpl"
const ROLES_LOCK_KEY = 0x726f6c; // "rol"
const ADMIN_CONNECTION_LIMIT = 20;

export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  // A connection killed between queries (DROP DATABASE ... WITH (FORCE), a server restart)
  // makes pg emit 'error'; unhandled, that would kill the process. The query fails anyway.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function roleExists(client: ClientBase, role: string): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  return rowCount === 1;
}

async function databaseExists(client: ClientBase, name: string): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rowCount === 1;
}

/** anon, authenticated, service_role (BYPASSRLS), all NOLOGIN; authenticator (LOGIN, NOINHERIT) is granted the three. */
export async function ensureClusterRoles(
  adminUrl: string,
  authenticatorPassword: string,
): Promise<void> {
  await withClusterLock(adminUrl, ROLES_LOCK_KEY, () =>
    withClient(adminUrl, (client) => createClusterRoles(client, authenticatorPassword)),
  );
}

async function createClusterRoles(
  client: ClientBase,
  authenticatorPassword: string,
): Promise<void> {
  await inTransaction(client, async () => {
    for (const role of API_ROLES) {
      if (!(await roleExists(client, role)))
        await client.query(`CREATE ROLE ${quoteIdent(role)} NOLOGIN NOINHERIT`);
    }
    await client.query('ALTER ROLE service_role BYPASSRLS');
    if (!(await roleExists(client, AUTHENTICATOR_ROLE))) {
      await client.query(`CREATE ROLE ${AUTHENTICATOR_ROLE} LOGIN NOINHERIT`);
    }
    await client.query(
      `ALTER ROLE ${AUTHENTICATOR_ROLE} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${quoteLiteral(authenticatorPassword)}`,
    );
    await client.query(`GRANT anon, authenticated, service_role TO ${AUTHENTICATOR_ROLE}`);
    // The auth service's role: writes the `auth` schema. Only the data plane's auth code
    // switches to it; API requests take their role from a verified token (never this one).
    if (!(await roleExists(client, AUTH_ADMIN_ROLE))) {
      await client.query(`CREATE ROLE ${AUTH_ADMIN_ROLE} NOLOGIN NOINHERIT`);
    }
    await client.query(`GRANT ${AUTH_ADMIN_ROLE} TO ${AUTHENTICATOR_ROLE}`);
  });
}

/**
 * Advisory locks are scoped to one database, and several control databases (installations,
 * test runs) may share a cluster and its roles. Cluster-wide work therefore locks in the
 * maintenance database, which every cluster has.
 */
export const LOCK_DATABASE = 'postgres';

async function withClusterLock<T>(adminUrl: string, key: number, fn: () => Promise<T>): Promise<T> {
  return withClient(connectionUrl(adminUrl, LOCK_DATABASE), async (lock) => {
    await lock.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await fn();
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  });
}

/**
 * Creates the template database if needed and applies pending project migrations to it.
 * `adminUrl` is the control database URL (a role that may create databases).
 */
export async function ensureTemplate(
  adminUrl: string,
  templateDb: string,
  files: MigrationFile[] = readMigrations('project'),
): Promise<string[]> {
  return withClusterLock(adminUrl, TEMPLATE_LOCK_KEY, async () => {
    await withClient(adminUrl, async (admin) => {
      if (!(await databaseExists(admin, templateDb))) {
        await admin.query(`CREATE DATABASE ${quoteIdent(templateDb)}`);
        await admin.query(`REVOKE ALL ON DATABASE ${quoteIdent(templateDb)} FROM PUBLIC`);
      }
    });
    return withClient(connectionUrl(adminUrl, templateDb), (tpl) =>
      runMigrations(tpl, 'project', files),
    );
  });
}

/** CREATE DATABASE proj_<ref> TEMPLATE <template>, unless it exists already. Returns true if created. */
export async function createProjectDatabase(
  adminUrl: string,
  ref: string,
  templateDb: string,
): Promise<boolean> {
  const db = projectDbName(ref);
  return withClusterLock(adminUrl, TEMPLATE_LOCK_KEY, () =>
    withClient(adminUrl, async (admin) => {
      const created = !(await databaseExists(admin, db));
      if (created) {
        await admin.query(`CREATE DATABASE ${quoteIdent(db)} TEMPLATE ${quoteIdent(templateDb)}`);
      }
      // A copy starts with CONNECT for PUBLIC. Close it now (and again on a retry after a
      // crash right here), not only at the finish, which may fail and leave it open.
      await admin.query(`REVOKE ALL ON DATABASE ${quoteIdent(db)} FROM PUBLIC`);
      return created;
    }),
  );
}

/**
 * The per-project finish after the copy: the project's admin role (LOGIN, CONNECT on its
 * own database only, owner of `public`) and the database-level privileges, which a
 * template copy does not carry over.
 */
export async function finishProjectDatabase(
  adminUrl: string,
  ref: string,
  adminPassword: string,
): Promise<void> {
  const db = quoteIdent(projectDbName(ref));
  const role = quoteIdent(adminRoleName(ref));
  await withClusterLock(adminUrl, ROLES_LOCK_KEY, () =>
    withClient(adminUrl, (admin) =>
      inTransaction(admin, async () => {
        if (!(await roleExists(admin, adminRoleName(ref))))
          await admin.query(`CREATE ROLE ${role} LOGIN`);
        await admin.query(
          `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT ${ADMIN_CONNECTION_LIMIT} PASSWORD ${quoteLiteral(adminPassword)}`,
        );
        // Lets the project's SQL `SET ROLE authenticated` to try its own policies.
        await admin.query(`GRANT anon, authenticated, service_role TO ${role}`);
        await admin.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
        await admin.query(
          `GRANT CONNECT, TEMPORARY ON DATABASE ${db} TO ${role}, ${AUTHENTICATOR_ROLE}`,
        );
        // Its own schemas (an `api` schema to expose through REST), as Supabase's postgres role.
        await admin.query(`GRANT CREATE ON DATABASE ${db} TO ${role}`);
      }),
    ),
  );
  await withClient(connectionUrl(adminUrl, projectDbName(ref)), async (client) => {
    await client.query(`
      BEGIN;
      ALTER SCHEMA public OWNER TO ${role};
      GRANT USAGE ON SCHEMA auth, storage, _platform TO ${role};
      GRANT SELECT, REFERENCES ON auth.users TO ${role};
      -- Owner of the storage tables, so its SQL can write the policies that govern files.
      ALTER TABLE storage.buckets OWNER TO ${role};
      ALTER TABLE storage.objects OWNER TO ${role};
      ALTER DEFAULT PRIVILEGES FOR ROLE ${role} IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
      ALTER DEFAULT PRIVILEGES FOR ROLE ${role} IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
      ALTER DEFAULT PRIVILEGES FOR ROLE ${role} IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO anon, authenticated, service_role;
      COMMIT;`);
  });
}

/** Applies pending project migrations to one existing project database. */
export async function upgradeProjectDatabase(
  adminUrl: string,
  ref: string,
  files?: MigrationFile[],
): Promise<string[]> {
  return withClient(connectionUrl(adminUrl, projectDbName(ref)), (client) =>
    runMigrations(client, 'project', files),
  );
}

/** Drops the project's database (closing its connections) and its admin role. */
export async function dropProjectDatabase(adminUrl: string, ref: string): Promise<void> {
  await withClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(projectDbName(ref))} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${quoteIdent(adminRoleName(ref))}`);
  });
}

export async function projectDatabaseExists(adminUrl: string, ref: string): Promise<boolean> {
  return withClient(adminUrl, (admin) => databaseExists(admin, projectDbName(ref)));
}
