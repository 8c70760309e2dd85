import { randomBytes } from 'node:crypto';
import { generateProjectRef } from '@baseplate/security';
import {
  connectionUrl,
  createProjectDatabase,
  dropProjectDatabase,
  projectDbName,
  MigrationError,
  MigrationFile,
  quoteIdent,
  readMigrations,
  runMigrations,
  withClient,
} from '@baseplate/database';

const adminUrl = () => process.env.BASEPLATE_TEST_ADMIN_URL!;

describe('migration runner', () => {
  const db = `bp_test_mig_${randomBytes(4).toString('hex')}`;
  const url = () => connectionUrl(adminUrl(), db);

  beforeAll(() => withClient(adminUrl(), (c) => c.query(`CREATE DATABASE ${quoteIdent(db)}`)));
  afterAll(() =>
    withClient(adminUrl(), (c) =>
      c.query(`DROP DATABASE IF EXISTS ${quoteIdent(db)} WITH (FORCE)`),
    ),
  );

  it('applies every control migration once, in order, recording name and checksum', async () => {
    const files = readMigrations('control');
    expect(files.map((f) => f.name)).toEqual([...files.map((f) => f.name)].sort());
    await withClient(url(), async (c) => {
      expect(await runMigrations(c, 'control', files)).toEqual(files.map((f) => f.name));
      expect(await runMigrations(c, 'control', files)).toEqual([]);
      const { rows } = await c.query('SELECT name, checksum FROM schema_migrations ORDER BY name');
      expect(rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
    });
  });

  it('refuses a file edited after it was applied', async () => {
    const files = readMigrations('control');
    const edited: MigrationFile[] = files.map((f, i) =>
      i === 0 ? { ...f, checksum: 'f'.repeat(64), sql: f.sql + '\n-- x' } : f,
    );
    await withClient(url(), async (c) => {
      await expect(runMigrations(c, 'control', edited)).rejects.toThrow(MigrationError);
      await expect(runMigrations(c, 'control', edited)).rejects.toThrow(
        /0001-create-accounts.sql was edited/,
      );
    });
  });

  it('rolls back a failing migration together with its record', async () => {
    const bad: MigrationFile = {
      name: '9999-break-things.sql',
      checksum: 'x',
      sql: 'CREATE TABLE ok_table (id int); SELECT 1/0;',
    };
    await withClient(url(), async (c) => {
      await expect(
        runMigrations(c, 'control', [...readMigrations('control'), bad]),
      ).rejects.toThrow(/9999-break-things.sql failed: division by zero/);
      const { rowCount } = await c.query("SELECT 1 FROM pg_tables WHERE tablename = 'ok_table'");
      expect(rowCount).toBe(0);
      const recorded = await c.query(
        "SELECT 1 FROM schema_migrations WHERE name = '9999-break-things.sql'",
      );
      expect(recorded.rowCount).toBe(0);
    });
  });

  it('applies concurrently started runs exactly once (advisory lock)', async () => {
    const other = `${db}_b`;
    await withClient(adminUrl(), (c) => c.query(`CREATE DATABASE ${quoteIdent(other)}`));
    try {
      const target = connectionUrl(adminUrl(), other);
      const results = await Promise.all(
        [1, 2, 3].map(() => withClient(target, (c) => runMigrations(c, 'control'))),
      );
      expect(results.flat().sort()).toEqual(readMigrations('control').map((f) => f.name));
    } finally {
      await withClient(adminUrl(), (c) =>
        c.query(`DROP DATABASE IF EXISTS ${quoteIdent(other)} WITH (FORCE)`),
      );
    }
  });
});

describe('project template', () => {
  // A connection to the template itself would make every concurrent CREATE DATABASE ...
  // TEMPLATE in other suites fail, so these checks read a fresh copy of it.
  const ref = generateProjectRef();
  const copy = () => connectionUrl(adminUrl(), projectDbName(ref));
  beforeAll(() => createProjectDatabase(adminUrl(), ref, process.env.BASEPLATE_TEST_TEMPLATE_DB!));
  afterAll(() => dropProjectDatabase(adminUrl(), ref));

  it('is at the newest project migration', async () => {
    await withClient(copy(), async (c) => {
      const { rows } = await c.query('SELECT name FROM _platform.migrations ORDER BY name');
      expect(rows.map((r) => r.name)).toEqual(readMigrations('project').map((f) => f.name));
    });
  });

  it('has schemas auth, storage, _platform; auth helpers read request.jwt.claims; DDL bumps the version', async () => {
    await withClient(copy(), async (c) => {
      const schemas = await c.query(
        "SELECT nspname FROM pg_namespace WHERE nspname IN ('auth','storage','_platform') ORDER BY 1",
      );
      expect(schemas.rows.map((r) => r.nspname)).toEqual(['_platform', 'auth', 'storage']);
      await c.query('BEGIN');
      const sub = '6f1c2c1e-8a4e-4a8e-9b1a-0a0b0c0d0e0f';
      await c.query("SELECT set_config('request.jwt.claims', $1, true)", [
        JSON.stringify({ sub, role: 'authenticated', email: 'a@b.c' }),
      ]);
      const who = await c.query(
        'SELECT auth.uid() AS uid, auth.role() AS role, auth.jwt() ->> $1 AS email',
        ['email'],
      );
      expect(who.rows[0]).toEqual({ uid: sub, role: 'authenticated', email: 'a@b.c' });
      const before = (await c.query('SELECT version FROM _platform.schema_version')).rows[0]
        .version;
      await c.query('CREATE TABLE public.bump_probe (id int)');
      const after = (await c.query('SELECT version FROM _platform.schema_version')).rows[0].version;
      expect(Number(after)).toBeGreaterThan(Number(before));
      await c.query('ROLLBACK');
      const anonymous = await c.query('SELECT auth.uid() AS uid');
      expect(anonymous.rows[0].uid).toBeNull();
    });
  });

  it('keeps project_secrets behind RLS with no policy', async () => {
    await withClient(copy(), async (c) => {
      const { rows } = await c.query(
        "SELECT relrowsecurity FROM pg_class WHERE oid = 'public.project_secrets'::regclass",
      );
      expect(rows[0].relrowsecurity).toBe(true);
      const policies = await c.query(
        "SELECT 1 FROM pg_policies WHERE tablename = 'project_secrets'",
      );
      expect(policies.rowCount).toBe(0);
    });
  });

  it('creates the cluster roles with the right attributes', async () => {
    await withClient(adminUrl(), async (c) => {
      const { rows } = await c.query(
        "SELECT rolname, rolcanlogin, rolbypassrls, rolinherit FROM pg_roles WHERE rolname IN ('anon','authenticated','service_role','authenticator') ORDER BY 1",
      );
      expect(rows).toEqual([
        { rolname: 'anon', rolcanlogin: false, rolbypassrls: false, rolinherit: false },
        { rolname: 'authenticated', rolcanlogin: false, rolbypassrls: false, rolinherit: false },
        { rolname: 'authenticator', rolcanlogin: true, rolbypassrls: false, rolinherit: false },
        { rolname: 'service_role', rolcanlogin: false, rolbypassrls: true, rolinherit: false },
      ]);
    });
  });
});
