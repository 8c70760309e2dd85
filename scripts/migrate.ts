/**
 * `npm run migrate`: control migrations, the project template, then every active project
 * database brought to the newest project migration. Uses DATABASE_URL, else the same
 * embedded PostgreSQL as `npm start`, so it works on a fresh checkout.
 */
import { loadConfig } from '@baseplate/config';
import { migrateAll, upgradeProjectDatabase, withClient } from '@baseplate/database';
import { DevEnvironment, findRepoRoot, resolveDevEnvironment } from '@baseplate/dev-services';
import { runApp } from '@baseplate/logging';

let services: DevEnvironment | undefined;

async function upgradeProjects(databaseUrl: string): Promise<number> {
  const { rows } = await withClient(databaseUrl, (c) =>
    c.query<{ ref: string }>(
      "SELECT ref FROM projects WHERE status = 'ACTIVE_HEALTHY' ORDER BY created_at",
    ),
  );
  let upgraded = 0;
  let failed = 0;
  for (const { ref } of rows) {
    try {
      const applied = await upgradeProjectDatabase(databaseUrl, ref);
      if (applied.length) {
        upgraded++;
        console.log(`project ${ref}: applied ${applied.join(', ')}`);
      }
    } catch (e) {
      // One broken project must not keep the others on an old schema.
      failed++;
      console.error(`project ${ref}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  console.log(
    `project databases: ${rows.length} active, ${upgraded} upgraded, ${rows.length - upgraded - failed} up to date, ${failed} failed`,
  );
  return failed;
}

async function main(): Promise<void> {
  services = await resolveDevEnvironment({ root: findRepoRoot(__dirname) });
  try {
    services.summary.forEach((line) => console.log(line));
    const config = loadConfig({ ...process.env, ...services.env });
    const { control, template } = await migrateAll(config);
    console.log(
      `control database: ${control.length ? `applied ${control.join(', ')}` : 'up to date'}`,
    );
    console.log(
      `project template ${config.projectTemplateDb}: ${template.length ? `applied ${template.join(', ')}` : 'up to date'}`,
    );
    const failed = await upgradeProjects(config.databaseUrl);
    process.exitCode = failed ? 1 : 0;
  } finally {
    await services.stop();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A migration interrupted here is rolled back by PostgreSQL (each runs in a transaction).
    void (services?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

runApp('migrate', main);
