import { Job, JobState, Queue } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AppConfig } from '@baseplate/config';
import {
  adminRoleName,
  connectionUrl,
  dropProjectDatabase,
  projectDbName,
  quoteIdent,
  runMigrations,
  withClient,
} from '@baseplate/database';
import {
  createRedis,
  defaultJobOptions,
  ProvisioningJobName,
  ProvisioningPayloads,
  QUEUES,
} from '@baseplate/jobs';
import { generateProjectRef } from '@baseplate/security';
import { testConfig } from '@baseplate/testing';

/** The superuser URL of the test cluster (set by test/global-setup.ts). */
export const clusterAdminUrl = (): string => {
  const url = process.env.BASEPLATE_TEST_ADMIN_URL;
  if (!url) throw new Error('BASEPLATE_TEST_ADMIN_URL is not set: run through jest');
  return url;
};

export interface ProjectRow {
  ref: string;
  status: string;
  status_reason: string | null;
  progress: number;
  jwt_secret_enc: string | null;
  admin_password_enc: string | null;
  keys_version: number;
  keys_issued_at: string | null;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What a worker suite needs around the worker under test: its own control database (as
 * the control plane would write it), the cluster catalog, and a producer on its queue.
 *
 * The control database is the suite's own because upgrade-projects works on every active
 * project it lists: on the run's shared one it would open other suites' project databases
 * while those suites drop them.
 */
export class WorkerTestKit {
  readonly control: Pool;
  readonly cluster: Pool;
  readonly redis: Redis;
  readonly queue: Queue;
  private readonly refs = new Set<string>();
  private accountId?: string;

  /** `overrides` are environment variables, as for testConfig. */
  static async create(overrides: Record<string, string> = {}): Promise<WorkerTestKit> {
    const name = `bp_test_worker_${randomBytes(4).toString('hex')}`;
    await withClient(clusterAdminUrl(), (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
    const url = connectionUrl(clusterAdminUrl(), name);
    // Control migrations only: the cluster roles exist already (global setup), and altering
    // them here would race other suites doing the same.
    await withClient(url, async (c) => {
      await runMigrations(c, 'control');
      await c.query(`REVOKE ALL ON DATABASE ${quoteIdent(name)} FROM PUBLIC`);
    });
    return new WorkerTestKit(testConfig({ DATABASE_URL: url, ...overrides }), name);
  }

  private constructor(
    readonly config: AppConfig,
    private readonly controlDb: string,
  ) {
    this.control = new Pool({ connectionString: config.databaseUrl, max: 3 });
    this.cluster = new Pool({ connectionString: clusterAdminUrl(), max: 2 });
    this.redis = createRedis(config.redisUrl);
    this.queue = new Queue(QUEUES.provisioning, {
      connection: this.redis,
      prefix: config.queuePrefix,
    });
  }

  /** A COMING_UP project row, as POST /v1/projects leaves it. */
  async insertProject(): Promise<string> {
    this.accountId ??= (
      await this.control.query<{ id: string }>(
        'INSERT INTO accounts (email, password_hash) VALUES ($1, $2) RETURNING id',
        [`worker-${randomBytes(6).toString('hex')}@example.test`, 'not-a-real-hash'],
      )
    ).rows[0].id;
    const ref = this.newRef();
    await this.control.query(
      'INSERT INTO projects (ref, account_id, name, db_name) VALUES ($1, $2, $3, $4)',
      [ref, this.accountId, `worker test ${ref}`, projectDbName(ref)],
    );
    return ref;
  }

  /** A ref this kit cleans up after, whether or not it has a row. */
  newRef(): string {
    const ref = generateProjectRef();
    this.refs.add(ref);
    return ref;
  }

  async row(ref: string): Promise<ProjectRow | undefined> {
    const { rows } = await this.control.query<ProjectRow>('SELECT * FROM projects WHERE ref = $1', [
      ref,
    ]);
    return rows[0];
  }

  async waitForStatus(ref: string, status: string, timeoutMs = 10_000): Promise<ProjectRow> {
    return waitFor(
      `${ref} to be ${status}`,
      async () => {
        const row = await this.row(ref);
        return row?.status === status ? row : undefined;
      },
      timeoutMs,
    );
  }

  async add<N extends ProvisioningJobName>(
    name: N,
    data: ProvisioningPayloads[N],
    jobId: string,
    attempts = 3,
  ): Promise<Job> {
    const options = defaultJobOptions({ attempts, backoffMs: 200 });
    return this.queue.add(name, data, { ...options, jobId });
  }

  async waitForJob(jobId: string, states: JobState[] = ['completed'], timeoutMs = 10_000) {
    return waitFor(
      `job ${jobId} to be ${states.join(' or ')}`,
      async () => {
        const job = await this.queue.getJob(jobId);
        const state = job ? await job.getState() : undefined;
        // The job may have finished between the two reads: read it again so its fields
        // (returnvalue, counters) match the state.
        return job && states.includes(state as JobState) ? this.queue.getJob(jobId) : undefined;
      },
      timeoutMs,
    );
  }

  async databaseCount(ref: string): Promise<number> {
    const { rows } = await this.cluster.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_database WHERE datname = $1',
      [projectDbName(ref)],
    );
    return rows[0].n;
  }

  async roleCount(ref: string): Promise<number> {
    const { rows } = await this.cluster.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_roles WHERE rolname = $1',
      [adminRoleName(ref)],
    );
    return rows[0].n;
  }

  /** Drops every project database and role it saw, its control database, its queue. */
  async close(): Promise<void> {
    const { rows } = await this.control.query<{ ref: string }>('SELECT ref FROM projects');
    await this.control.end();
    for (const ref of new Set([...this.refs, ...rows.map((r) => r.ref)])) {
      await dropProjectDatabase(clusterAdminUrl(), ref);
    }
    await this.cluster.query(`DROP DATABASE IF EXISTS ${quoteIdent(this.controlDb)} WITH (FORCE)`);
    await this.cluster.end();
    await this.queue.obliterate({ force: true });
    await this.queue.close();
    this.redis.disconnect();
    // testConfig puts both directories in one temporary directory of their own.
    await rm(dirname(this.config.storageDir), { recursive: true, force: true });
  }
}
