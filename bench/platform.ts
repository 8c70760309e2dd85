/**
 * The three apps booted in the benchmark's process on a throw-away control database and
 * template (shared by the benchmarks); `close` drops everything the run made.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { AppConfig, loadConfig } from '@baseplate/config';
import { connectionUrl, migrateAll, quoteIdent, withClient } from '@baseplate/database';
import { deleteKeysMatching } from '@baseplate/jobs';
import { createControlPlaneApp } from '../apps/control-plane/src/bootstrap';
import { createDataPlaneApp } from '../apps/data-plane/src/bootstrap';
import { startWorker } from '../apps/worker/src/bootstrap';
import type { Argon2Load, HttpLoad, LoadResult, PgLoad } from './rest-load';

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

/** A JSON request of a benchmark's setup: `{status, body}`. */
export async function json(
  url: string,
  method: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** An account and an ACTIVE_HEALTHY project on the bench platform. */
export async function createBenchProject(
  platform: BenchPlatform,
): Promise<{ ref: string; token: string }> {
  const { controlUrl } = platform;
  const account = { email: `bench-${platform.id}@example.com`, password: 'benchmark password' };
  await json(`${controlUrl}/v1/signup`, 'POST', { body: account });
  const login = await json(`${controlUrl}/v1/login`, 'POST', { body: account });
  const token = login.body.access_token as string;
  const created = await json(`${controlUrl}/v1/projects`, 'POST', {
    token,
    body: { name: 'bench' },
  });
  const ref = created.body.id as string;
  for (;;) {
    const p = await json(`${controlUrl}/v1/projects/${ref}`, 'GET', { token });
    if (p.body.status === 'ACTIVE_HEALTHY') return { ref, token };
    if (p.body.status === 'INIT_FAILED') throw new Error(`${ref}: ${String(p.body.status_reason)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs one load in the child process bench/rest-load and returns its figures. */
export function runLoad(spec: HttpLoad | PgLoad | Argon2Load): Promise<LoadResult> {
  return promisify(execFile)(
    process.execPath,
    [join(__dirname, 'rest-load.js'), JSON.stringify(spec)],
    {
      maxBuffer: 1 << 20,
    },
  ).then(({ stdout }) => JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult);
}

/** A plain-text table: columns padded to their widest cell, a dashed rule under the header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Runs a benchmark's main and exits: 0 when it finished, 1 (with the error) when it failed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
