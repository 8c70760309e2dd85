import { randomBytes } from 'node:crypto';
import { loadConfig } from '@baseplate/config';
import { connectionUrl, migrateAll, quoteIdent, withClient } from '@baseplate/database';
import { TEST_ENV, TEST_MASTER_KEY } from '@baseplate/testing';
import { ensureTestServices } from './test-services';

/**
 * Once per jest project: a fresh control database and project template on the test
 * cluster, migrated; their names reach every suite through the environment.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[TEST_ENV.databaseUrl]) return; // already set up by an earlier project in this run
  const { databaseUrl, redisUrl } = await ensureTestServices();
  const id = randomBytes(4).toString('hex');
  const controlDb = `bp_test_${id}`;
  const templateDb = `bp_test_${id}_tpl`;
  await withClient(databaseUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(controlDb)}`));
  const controlUrl = connectionUrl(databaseUrl, controlDb);
  await migrateAll(
    loadConfig({
      DATABASE_URL: controlUrl,
      MASTER_KEY: TEST_MASTER_KEY,
      PROJECT_TEMPLATE_DB: templateDb,
      REDIS_URL: redisUrl,
    }),
  );
  process.env[TEST_ENV.databaseUrl] = controlUrl;
  process.env[TEST_ENV.templateDb] = templateDb;
  process.env[TEST_ENV.redisUrl] = redisUrl;
  process.env[TEST_ENV.runId] = id;
  process.env.BASEPLATE_TEST_ADMIN_URL = databaseUrl;
}
