import { connectionUrl } from '@baseplate/database';
import { join } from 'node:path';
import { ensureDatabase } from './database';
import { DEFAULT_EMBEDDED_PG_PORT, startEmbeddedPostgres } from './embedded-postgres';
import { ensureMasterKey } from './master-key';
import { describeDatabaseUrl, describeRedisUrl } from './redact';
import { ensureRedis } from './redis';

export const CONTROL_DATABASE = 'baseplate';

export interface DevEnvironmentOptions {
  /** Repository root: `.data/` lives here. */
  root: string;
  env?: Record<string, string | undefined>;
  /** Resolve REDIS_URL too (the apps need it; migrations do not). */
  redis?: boolean;
  log?: (line: string) => void;
}

export interface DevEnvironment {
  /** The variables to add to the environment: DATABASE_URL, MASTER_KEY and maybe REDIS_URL. */
  env: Record<string, string>;
  /** Safe-to-print lines saying where each service came from (no passwords). */
  summary: string[];
  /** Stops whatever was started here (embedded PostgreSQL, a spawned redis-server). */
  stop(): Promise<void>;
}

/**
 * What `npm start` and `npm run migrate` share: DATABASE_URL, else an embedded PostgreSQL
 * under `.data/postgres` with the control database `baseplate`; REDIS_URL, else a local or
 * spawned Redis; MASTER_KEY, else the development key in `.data/master.key`.
 */
export async function resolveDevEnvironment(
  options: DevEnvironmentOptions,
): Promise<DevEnvironment> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dataDir = join(options.root, '.data');
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  const out: Record<string, string> = {};
  const summary: string[] = [];
  try {
    if (env.DATABASE_URL) {
      out.DATABASE_URL = env.DATABASE_URL;
      summary.push(`PostgreSQL: ${describeDatabaseUrl(env.DATABASE_URL)} (DATABASE_URL)`);
    } else {
      const started = Date.now();
      const pg = await startEmbeddedPostgres({
        dataDir: join(dataDir, 'postgres'),
        port: Number(env.EMBEDDED_POSTGRES_PORT) || DEFAULT_EMBEDDED_PG_PORT,
        log,
      });
      stops.push(pg.stop);
      await ensureDatabase(pg.url, CONTROL_DATABASE);
      out.DATABASE_URL = connectionUrl(pg.url, CONTROL_DATABASE);
      const how = pg.initialised ? 'initialised and started' : 'started';
      summary.push(
        `PostgreSQL: embedded, ${describeDatabaseUrl(out.DATABASE_URL)} (${how} in ${Date.now() - started} ms, data in .data/postgres)`,
      );
    }
    if (options.redis) {
      const redis = await ensureRedis({ url: env.REDIS_URL, dataDir: join(dataDir, 'redis'), log });
      stops.push(redis.stop);
      out.REDIS_URL = redis.url;
      const how = {
        given: 'REDIS_URL',
        running: 'already running',
        spawned: 'redis-server started',
      };
      summary.push(`Redis: ${describeRedisUrl(redis.url)} (${how[redis.source]})`);
    }
    out.MASTER_KEY = ensureMasterKey(dataDir, { env, log });
    return { env: out, summary, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
