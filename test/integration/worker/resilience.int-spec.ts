import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { AppConfig } from '@baseplate/config';
import { CREATE_PROJECT_STEPS, jobIds } from '@baseplate/jobs';
import { TEST_MASTER_KEY } from '@baseplate/testing';
import { WorkerTestKit, waitFor } from './worker-test-kit';

const ROOT = join(__dirname, '..', '..', '..');
const JOB_LOCK_MS = 2000;

/** The real entrypoint, as `node` runs it: its own process, its own environment. */
function spawnWorker(
  config: AppConfig,
  stepDelayMs: number,
): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/worker/src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      PROJECT_TEMPLATE_DB: config.projectTemplateDb,
      MASTER_KEY: TEST_MASTER_KEY,
      QUEUE_PREFIX: config.queuePrefix,
      STORAGE_DIR: config.storageDir,
      FUNCTIONS_DIR: config.functionsDir,
      JOB_LOCK_MS: String(JOB_LOCK_MS),
      JOB_BACKOFF_MS: String(config.jobBackoffMs),
      PROVISION_STEP_DELAY_MS: String(stepDelayMs),
    },
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe('worker resilience', () => {
  const children: { child: ChildProcess; output: () => string }[] = [];
  const kits: WorkerTestKit[] = [];

  /** A fresh queue prefix per test, so one test's workers never take the other's jobs. */
  const setUp = async () => {
    const kit = await WorkerTestKit.create({ JOB_LOCK_MS: String(JOB_LOCK_MS) });
    kits.push(kit);
    return { config: kit.config, kit };
  };
  const start = (config: AppConfig, stepDelayMs: number) => {
    const worker = spawnWorker(config, stepDelayMs);
    children.push(worker);
    return worker.child;
  };

  afterAll(async () => {
    for (const { child } of children) await kill(child);
    for (const kit of kits) await kit.close();
  });

  /** Fails with the children's output, which is the only trace of why a child did not get there. */
  const orExplain = async <T>(promise: Promise<T>): Promise<T> =>
    promise.catch((e: Error) => {
      const logs = children.map((c, i) => `worker ${i + 1}:\n${c.output()}`).join('\n');
      throw new Error(`${e.message}\n${logs}`);
    });

  const progressAtLeast = (kit: WorkerTestKit, ref: string, percent: number) =>
    orExplain(
      waitFor(
        `${ref} to reach progress ${percent}`,
        async () => {
          const row = await kit.row(ref);
          return row && row.progress >= percent ? row : undefined;
        },
        20_000,
      ),
    );

  it('finishes a create-project whose worker was killed mid-job, with nothing duplicated', async () => {
    const { config, kit } = await setUp();
    const ref = await kit.insertProject();
    const jobId = jobIds.createProject(ref);
    const first = start(config, 1500);
    await kit.add('create-project', { ref }, jobId);

    const midway = await progressAtLeast(kit, ref, CREATE_PROJECT_STEPS.databaseCreated);
    expect(midway.status).toBe('COMING_UP');
    expect(await kit.databaseCount(ref)).toBe(1);
    await kill(first);
    expect((await kit.row(ref))?.status).toBe('COMING_UP');

    start(config, 0);
    const done = await orExplain(kit.waitForStatus(ref, 'ACTIVE_HEALTHY', 20_000));

    expect(done.progress).toBe(100);
    expect(await kit.databaseCount(ref)).toBe(1);
    expect(await kit.roleCount(ref)).toBe(1);
    // The retry found the secrets sealed before the crash and kept them.
    expect(done.jwt_secret_enc).toBe(midway.jwt_secret_enc);
    expect(done.admin_password_enc).toBe(midway.admin_password_enc);

    const job = await kit.waitForJob(jobId);
    expect(job.returnvalue).toBe('created');
    // Recovered as a stalled job (the kill), not as a failed attempt, and finished once.
    expect(job.stalledCounter).toBe(1);
    expect(job.attemptsMade).toBe(1);
    const completed = (await kit.queue.getJobs(['completed'])).filter((j) => j.id === jobId);
    expect(completed).toHaveLength(1);
    const failed = (await kit.queue.getJobs(['failed'])).filter((j) => j.name === 'create-project');
    expect(failed).toHaveLength(0);
  }, 50_000);

  it('on SIGTERM lets the running job finish, then exits 0', async () => {
    const { config, kit } = await setUp();
    const ref = await kit.insertProject();
    const worker = start(config, 1000);
    await kit.add('create-project', { ref }, jobIds.createProject(ref));
    await progressAtLeast(kit, ref, CREATE_PROJECT_STEPS.secretsSealed);

    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, string | null];

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect((await kit.row(ref))?.status).toBe('ACTIVE_HEALTHY');
    expect(await (await kit.queue.getJob(jobIds.createProject(ref)))?.getState()).toBe('completed');
  }, 30_000);
});
