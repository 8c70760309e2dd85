import { join } from 'node:path';
import { ensureRedis, isUsableAdmin, startEmbeddedPostgres } from '@baseplate/dev-services';

/**
 * Where the tests find PostgreSQL and Redis, in this order: DATABASE_URL / REDIS_URL;
 * the machine's own services (PostgreSQL on 5432 as `postgres`, Redis on 6379); else an
 * embedded PostgreSQL under `.data/test-postgres` and a `redis-server` from the PATH,
 * stopped again by stopTestServices(). BASEPLATE_TEST_EMBEDDED=1 skips straight to the
 * embedded ones (to test that path on a machine that has both services).
 */
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const EMBEDDED_TEST_PG_PORT = 54330; // beside `npm start`'s 54329, so both can run at once
const root = join(__dirname, '..');

type Stop = () => Promise<void>;
// On globalThis, not in module scope: jest loads globalSetup and globalTeardown separately,
// and the teardown must find what the setup started.
const STOPS = Symbol.for('baseplate.testServices.stops');
const registry = globalThis as typeof globalThis & { [STOPS]?: Stop[] };

function remember(stop: Stop): void {
  (registry[STOPS] ??= []).push(stop);
}

async function resolveDatabase(forceEmbedded: boolean): Promise<string> {
  if (!forceEmbedded && process.env.DATABASE_URL) return process.env.DATABASE_URL;
  if (!forceEmbedded && (await isUsableAdmin(LOCAL_POSTGRES))) return LOCAL_POSTGRES;
  const started = Date.now();
  const pg = await startEmbeddedPostgres({
    dataDir: join(root, '.data', 'test-postgres'),
    port: EMBEDDED_TEST_PG_PORT,
    // Test data is thrown away: no fsync makes CREATE DATABASE and migrations much faster.
    durable: false,
  });
  remember(pg.stop);
  console.log(`\nEmbedded PostgreSQL for tests on port ${pg.port} (${Date.now() - started} ms)`);
  return pg.url;
}

export async function ensureTestServices(): Promise<{ databaseUrl: string; redisUrl: string }> {
  const forceEmbedded = process.env.BASEPLATE_TEST_EMBEDDED === '1';
  const databaseUrl = await resolveDatabase(forceEmbedded);
  const redis = await ensureRedis({
    url: forceEmbedded ? undefined : process.env.REDIS_URL,
    probeUrl: forceEmbedded ? false : undefined,
    dataDir: join(root, '.data', 'test-redis'),
    port: 6381,
  });
  if (redis.source === 'spawned') {
    remember(redis.stop);
    console.log(`Spawned redis-server for tests at ${redis.url}`);
  }
  return { databaseUrl, redisUrl: redis.url };
}

export async function stopTestServices(): Promise<void> {
  for (const stop of (registry[STOPS] ?? []).splice(0).reverse()) await stop();
}
