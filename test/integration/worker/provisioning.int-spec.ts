import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Redis from 'ioredis';
import { AppConfig, authenticatorPassword } from '@baseplate/config';
import {
  adminRoleName,
  connectionUrl,
  databaseNameOf,
  migrationSetDigest,
  projectDbName,
  readMigrations,
  withClient,
} from '@baseplate/database';
import {
  CREATE_PROJECT_STEPS,
  createRedis,
  jobIds,
  subscribeProjectInvalidation,
} from '@baseplate/jobs';
import { SecretBox } from '@baseplate/security';
import { TEST_ENV, TEST_MASTER_KEY } from '@baseplate/testing';
import { RunningWorker, startWorker } from '../../../apps/worker/src/bootstrap';
import { clusterAdminUrl, WorkerTestKit, waitFor } from './worker-test-kit';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('provisioning worker', () => {
  const box = new SecretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
  let config: AppConfig;
  const invalidated: string[] = [];
  let worker: RunningWorker | undefined;
  let kit: WorkerTestKit;
  let subscriber: Redis;
  let a: string;
  let b: string;

  const adminUrl = (ref: string, database: string, password: string) =>
    connectionUrl(config.databaseUrl, database, { name: adminRoleName(ref), password });
  const adminPassword = async (ref: string) => box.open((await kit.row(ref))!.admin_password_enc!);

  beforeAll(async () => {
    kit = await WorkerTestKit.create();
    config = kit.config;
    subscriber = createRedis(config.redisUrl);
    await subscribeProjectInvalidation(
      subscriber,
      config.queuePrefix,
      (ref) => invalidated.push(ref),
      () => undefined,
    );
    worker = await startWorker(config);
    [a, b] = await Promise.all([kit.insertProject(), kit.insertProject()]);
    await Promise.all(
      [a, b].map((ref) => kit.add('create-project', { ref }, jobIds.createProject(ref))),
    );
    await Promise.all([a, b].map((ref) => kit.waitForStatus(ref, 'ACTIVE_HEALTHY')));
  });

  afterAll(async () => {
    await worker?.close();
    subscriber?.disconnect();
    await kit?.close();
  });

  describe('create-project', () => {
    it('creates the database and marks the project active, with progress 100 and keys issued', async () => {
      expect(await kit.databaseCount(a)).toBe(1);
      const row = (await kit.row(a))!;
      expect(row).toMatchObject({
        status: 'ACTIVE_HEALTHY',
        status_reason: null,
        progress: 100,
        keys_version: 1,
      });
      expect(Number(row.keys_issued_at)).toBeGreaterThan(Date.now() / 1000 - 60);
      const job = await kit.waitForJob(jobIds.createProject(a));
      expect(job.progress).toBe(CREATE_PROJECT_STEPS.active);
      expect(job.returnvalue).toBe('created');
      expect(invalidated).toContain(a);
    });

    it('stores the JWT secret and admin password sealed, never in plaintext', async () => {
      const row = (await kit.row(a))!;
      expect(row.jwt_secret_enc).toMatch(/^v1\./);
      const secret = box.open(row.jwt_secret_enc!);
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(await adminPassword(a));
      expect(box.open((await kit.row(b))!.jwt_secret_enc!)).not.toBe(secret);
    });

    it('lets the admin role into its own database only', async () => {
      const password = await adminPassword(a);
      await withClient(adminUrl(a, projectDbName(a), password), async (c) => {
        await c.query('CREATE TABLE public.admin_probe (id int)');
        const { rows } = await c.query('SELECT current_user AS who');
        expect(rows[0].who).toBe(adminRoleName(a));
      });
      // Both this suite's control database and the run's, which migrateControl set up.
      for (const url of [config.databaseUrl, process.env[TEST_ENV.databaseUrl]!]) {
        await expect(
          withClient(adminUrl(a, databaseNameOf(url), password), async () => undefined),
        ).rejects.toThrow(/permission denied for database/);
      }
      await expect(
        withClient(adminUrl(a, projectDbName(b), password), async () => undefined),
      ).rejects.toThrow(/permission denied for database/);
    });

    it('lets authenticator connect to the project database', async () => {
      const url = connectionUrl(config.databaseUrl, projectDbName(a), {
        name: 'authenticator',
        password: authenticatorPassword(config),
      });
      const who = await withClient(
        url,
        async (c) => (await c.query('SELECT current_user AS u')).rows[0].u,
      );
      expect(who).toBe('authenticator');
    });

    it('gives public to the admin role; its tables reach authenticated, and RLS then hides rows', async () => {
      await withClient(adminUrl(a, projectDbName(a), await adminPassword(a)), async (c) => {
        const owner = await c.query(
          "SELECT pg_get_userbyid(nspowner) AS o FROM pg_namespace WHERE nspname = 'public'",
        );
        expect(owner.rows[0].o).toBe(adminRoleName(a));
        await c.query(
          "CREATE TABLE public.notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'x'), (2, 'y')",
        );
        const countAs = async (role: string) => {
          await c.query(`SET ROLE ${role}`);
          try {
            return (await c.query('SELECT count(*)::int AS n FROM public.notes')).rows[0].n;
          } finally {
            await c.query('RESET ROLE');
          }
        };
        expect(await countAs('authenticated')).toBe(2);
        await c.query('ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY');
        expect(await countAs('authenticated')).toBe(0);
        expect(await countAs('service_role')).toBe(2);
      });
    });

    it('finds an active project done when create-project is delivered again', async () => {
      const before = await kit.row(a);
      await kit.add('create-project', { ref: a }, `${jobIds.createProject(a)}.again`);
      const job = await kit.waitForJob(`${jobIds.createProject(a)}.again`);
      expect(job.returnvalue).toBe('already-active');
      expect(await kit.row(a)).toEqual(before);
    });

    it('completes a job for a ref with no project row without side effects', async () => {
      const ghost = kit.newRef();
      await kit.add('create-project', { ref: ghost }, jobIds.createProject(ghost));
      const job = await kit.waitForJob(jobIds.createProject(ghost));
      expect(job.returnvalue).toBe('skipped');
      expect(await kit.row(ghost)).toBeUndefined();
      expect(await kit.databaseCount(ghost)).toBe(0);
      expect(await kit.roleCount(ghost)).toBe(0);
    });

    it('marks the project INIT_FAILED with the reason once the last attempt fails', async () => {
      const doomed = await kit.insertProject();
      // A plain database under the project's name: the finish cannot find the auth schema.
      await kit.cluster.query(`CREATE DATABASE ${projectDbName(doomed)}`);
      await kit.add('create-project', { ref: doomed }, jobIds.createProject(doomed), 2);
      const row = await kit.waitForStatus(doomed, 'INIT_FAILED');
      expect(row.status_reason).toMatch(/schema "auth" does not exist/);
      expect(row.status_reason).not.toContain(box.open(row.admin_password_enc!));
      const job = await kit.waitForJob(jobIds.createProject(doomed), ['failed']);
      expect(job.attemptsMade).toBe(2);
      expect(invalidated).toContain(doomed);
    });
  });

  describe('rotate-keys', () => {
    it('installs a new secret at the next version; the same version again changes nothing', async () => {
      const before = (await kit.row(a))!;
      const count = invalidated.filter((r) => r === a).length;
      await kit.add('rotate-keys', { ref: a, keysVersion: 2 }, jobIds.rotateKeys(a, 2));
      expect((await kit.waitForJob(jobIds.rotateKeys(a, 2))).returnvalue).toBe('rotated');
      const after = (await kit.row(a))!;
      expect(after.keys_version).toBe(2);
      expect(box.open(after.jwt_secret_enc!)).not.toBe(box.open(before.jwt_secret_enc!));
      expect(Number(after.keys_issued_at)).toBeGreaterThanOrEqual(Number(before.keys_issued_at));

      const repeat = `${jobIds.rotateKeys(a, 2)}.again`;
      await kit.add('rotate-keys', { ref: a, keysVersion: 2 }, repeat);
      expect((await kit.waitForJob(repeat)).returnvalue).toBe('already-rotated');
      expect(await kit.row(a)).toEqual(after);
      // Both deliveries publish: the first may have crashed before it could.
      await waitFor(
        'two invalidations',
        async () => invalidated.filter((r) => r === a).length === count + 2,
      );
    });
  });

  describe('upgrade-projects', () => {
    const digest = migrationSetDigest(readMigrations('project'));

    it('is enqueued at worker start under the migration digest, and completes', async () => {
      const job = await kit.waitForJob(jobIds.upgradeProjects(digest));
      expect(job.name).toBe('upgrade-projects');
      expect(job.data).toEqual({ digest });
      expect(job.opts.attempts).toBe(config.jobAttempts);
    });

    it('applies a project migration an active project database is missing', async () => {
      const migration = '0005-create-project-secrets.sql';
      const url = connectionUrl(clusterAdminUrl(), projectDbName(b));
      const state = () =>
        withClient(url, async (c) => {
          const recorded = await c.query('SELECT 1 FROM _platform.migrations WHERE name = $1', [
            migration,
          ]);
          const table = await c.query("SELECT to_regclass('public.project_secrets') AS t");
          return { recorded: recorded.rowCount === 1, table: table.rows[0].t !== null };
        });
      await withClient(url, async (c) => {
        await c.query('DROP TABLE public.project_secrets');
        await c.query('DELETE FROM _platform.migrations WHERE name = $1', [migration]);
      });
      expect(await state()).toEqual({ recorded: false, table: false });

      const again = `${jobIds.upgradeProjects(digest)}.again`;
      await kit.add('upgrade-projects', { digest }, again);
      expect((await kit.waitForJob(again)).returnvalue).toEqual({ upgraded: 2 });
      expect(await state()).toEqual({ recorded: true, table: true });
    });
  });

  describe('delete-project', () => {
    it('drops the database and role, removes files and the row, and leaves other projects alone', async () => {
      const storage = join(config.storageDir, a, 'avatars');
      const functions = join(config.functionsDir, a, 'hello');
      await mkdir(storage, { recursive: true });
      await mkdir(functions, { recursive: true });
      await writeFile(join(storage, 'me.png'), 'png');
      await writeFile(join(functions, 'index.js'), 'export default () => 1');
      await kit.control.query('INSERT INTO project_auth_configs (project_ref) VALUES ($1)', [a]);
      await kit.control.query("UPDATE projects SET status = 'GOING_DOWN' WHERE ref = $1", [a]);

      await kit.add('delete-project', { ref: a }, jobIds.deleteProject(a));
      expect((await kit.waitForJob(jobIds.deleteProject(a))).returnvalue).toBe('deleted');

      expect(await kit.databaseCount(a)).toBe(0);
      expect(await kit.roleCount(a)).toBe(0);
      expect(await kit.row(a)).toBeUndefined();
      const auth = await kit.control.query(
        'SELECT 1 FROM project_auth_configs WHERE project_ref = $1',
        [a],
      );
      expect(auth.rowCount).toBe(0);
      expect(await exists(join(config.storageDir, a))).toBe(false);
      expect(await exists(join(config.functionsDir, a))).toBe(false);
      expect(await kit.databaseCount(b)).toBe(1);
      expect((await kit.row(b))?.status).toBe('ACTIVE_HEALTHY');
      await waitFor(
        'invalidation of the deleted project',
        async () => invalidated.filter((r) => r === a).length >= 4,
      );
    });

    it('finds an already deleted project gone', async () => {
      const again = `${jobIds.deleteProject(a)}.again`;
      await kit.add('delete-project', { ref: a }, again);
      expect((await kit.waitForJob(again)).returnvalue).toBe('already-gone');
    });
  });
});
