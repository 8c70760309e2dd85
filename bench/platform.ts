/**
 * The three apps booted in the benchmark's process on a throw-away control database and
 * template (shared by the benchmarks); `close` drops everything the run made.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { AppConfig, loadConfig } from '@baseplate/config';
import { connectionUrl, migrateAll, quoteIdent, withClient } from '@baseplate/database';
import { deleteKeysMatching } from '@baseplate/jobs';
import { createControlPlaneApp } from '../apps/control-plane/src/bootstrap';
import { createDataPlaneApp } from '../apps/data-plane/src/bootstrap';
import { startWorker } from '../apps/worker/src/bootstrap';

export const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface BenchPlatform {
  /** Prefix of everything this run names (databases, queue keys). */
  id: string;
  templateDb: string;
  config: AppConfig;
  controlUrl: string;
  dataUrl: string;
  /** Stops the apps and drops the control DB, the template, the given projects and Redis keys. */
  close(projectRefs: string[]): Promise<void>;
}

export async function startBenchPlatform(env: Record<string, string> = {}): Promise<BenchPlatform> {
  const id = randomBytes(3).toString('hex');
  const controlDb = `bp_bench_${id}`;
  const templateDb = `bp_bench_${id}_tpl`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(controlDb)}`));
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: connectionUrl(adminUrl, controlDb),
    REDIS_URL: redisUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    PROJECT_TEMPLATE_DB: templateDb,
    QUEUE_PREFIX: `bench-${id}`,
    HOST: '127.0.0.1',
    CONTROL_PLANE_PORT: '0',
    DATA_PLANE_PORT: '0',
    LOG_LEVEL: 'warn',
    ...env,
  });
  await migrateAll(config);
  const control = await createControlPlaneApp(config);
  const data = await createDataPlaneApp(config);
  const worker = await startWorker(config);
  const urlOf = async (app: { getUrl(): Promise<string> }) =>
    (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    id,
    templateDb,
    config,
    controlUrl: await urlOf(control),
    dataUrl: await urlOf(data),
    async close(projectRefs) {
      await Promise.allSettled([control.close(), data.close(), worker.close()]);
      await withClient(adminUrl, async (c) => {
        for (const ref of projectRefs) {
          await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(`proj_${ref}`)} WITH (FORCE)`);
          await c.query(`DROP ROLE IF EXISTS ${quoteIdent(`${ref}_admin`)}`);
        }
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(controlDb)} WITH (FORCE)`);
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(templateDb)} WITH (FORCE)`);
      });
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
      try {
        await deleteKeysMatching(redis, `bench-${id}:*`);
      } finally {
        redis.disconnect();
      }
    },
  };
}
