import { AppConfig, authenticatorPassword } from '@baseplate/config';
import { ensureClusterRoles, ensureTemplate, withClient } from './cluster-admin';
import { runMigrations } from './migration-runner';
import { databaseNameOf, quoteIdent } from './sql';

/**
 * Brings the control database to the newest control migration and makes sure the
 * cluster roles exist. Every app runs this at boot; it is cheap when nothing is pending.
 */
export async function migrateControl(config: AppConfig): Promise<string[]> {
  await ensureClusterRoles(config.databaseUrl, authenticatorPassword(config));
  return withClient(config.databaseUrl, async (client) => {
    const applied = await runMigrations(client, 'control');
    // Project admin roles may log in; they must never reach the control database.
    await client.query(
      `REVOKE ALL ON DATABASE ${quoteIdent(databaseNameOf(config.databaseUrl))} FROM PUBLIC`,
    );
    return applied;
  });
}

/** Control migrations plus the project template (what `npm run migrate` does). */
export async function migrateAll(
  config: AppConfig,
): Promise<{ control: string[]; template: string[] }> {
  const control = await migrateControl(config);
  const template = await ensureTemplate(config.databaseUrl, config.projectTemplateDb);
  return { control, template };
}
