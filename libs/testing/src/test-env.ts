import { AppConfig, loadConfig } from '@baseplate/config';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Environment set by test/global-setup.ts for every integration and e2e suite:
 * a fresh control database and template on the test cluster, and Redis.
 */
export const TEST_ENV = {
  databaseUrl: 'BASEPLATE_TEST_DATABASE_URL',
  templateDb: 'BASEPLATE_TEST_TEMPLATE_DB',
  redisUrl: 'BASEPLATE_TEST_REDIS_URL',
  /** Names this run's Redis keys (`bptest-<run>-...`), so teardown removes exactly those. */
  runId: 'BASEPLATE_TEST_RUN_ID',
} as const;

/** Prefix of every queue and channel key of one test run. */
export const testRedisPrefix = (runId: string): string => `bptest-${runId}-`;

/** A fixed test master key: test data is thrown away, so it need not be secret. */
export const TEST_MASTER_KEY = '0'.repeat(63) + '1';

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run this suite through jest (test/global-setup.ts)`);
  return value;
}

/**
 * Config for one suite: its own queue prefix (so suites never share jobs), ephemeral
 * ports and temporary storage, on the run's databases.
 */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  const dir = mkdtempSync(join(tmpdir(), 'baseplate-test-'));
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: required(TEST_ENV.databaseUrl),
    REDIS_URL: required(TEST_ENV.redisUrl),
    PROJECT_TEMPLATE_DB: required(TEST_ENV.templateDb),
    MASTER_KEY: TEST_MASTER_KEY,
    HOST: '127.0.0.1',
    CONTROL_PLANE_PORT: '0',
    DATA_PLANE_PORT: '0',
    STORAGE_DIR: join(dir, 'storage'),
    FUNCTIONS_DIR: join(dir, 'functions'),
    QUEUE_PREFIX: `${testRedisPrefix(process.env[TEST_ENV.runId] ?? 'adhoc')}${randomBytes(4).toString('hex')}`,
    JOB_BACKOFF_MS: '200',
    ...overrides,
  });
}
