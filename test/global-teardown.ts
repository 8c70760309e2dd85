import { databaseNameOf, quoteIdent, withClient } from '@baseplate/database';
import Redis from 'ioredis';
import { deleteKeysMatching } from '@baseplate/jobs';
import { TEST_ENV, testRedisPrefix } from '@baseplate/testing';
import { stopTestServices } from './test-services';

/** Drops the run's control database, template, and any project database or role it left behind. */
export default async function globalTeardown(): Promise<void> {
  const controlUrl = process.env[TEST_ENV.databaseUrl];
  const adminUrl = process.env.BASEPLATE_TEST_ADMIN_URL;
  if (!controlUrl || !adminUrl) return;
  const refs = await withClient(controlUrl, async (c) =>
    (await c.query<{ ref: string }>('SELECT ref FROM projects')).rows.map((r) => r.ref),
  ).catch(() => [] as string[]);
  await withClient(adminUrl, async (c) => {
    for (const ref of refs) {
      await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(`proj_${ref}`)} WITH (FORCE)`);
      await c.query(`DROP ROLE IF EXISTS ${quoteIdent(`${ref}_admin`)}`);
    }
    await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(databaseNameOf(controlUrl))} WITH (FORCE)`);
    await c.query(
      `DROP DATABASE IF EXISTS ${quoteIdent(process.env[TEST_ENV.templateDb]!)} WITH (FORCE)`,
    );
  });
  await deleteRunKeys();
  delete process.env[TEST_ENV.databaseUrl];
  await stopTestServices();
}

/** Every queue and channel key this run's suites made (their prefixes carry the run id). */
async function deleteRunKeys(): Promise<void> {
  const runId = process.env[TEST_ENV.runId];
  const url = process.env[TEST_ENV.redisUrl];
  if (!runId || !url) return;
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await deleteKeysMatching(redis, `${testRedisPrefix(runId)}*`);
  } finally {
    redis.disconnect();
  }
}
