import {
  adminRoleName,
  connectionUrl,
  projectDbName,
  quoteIdent,
  upgradeProjectDatabase,
  withClient,
} from '@baseplate/database';
import { testConfig } from '@baseplate/testing';
import { ProjectFactory } from '../data-plane/project-factory';

/** The project's admin role may create schemas: new projects at finish, older ones on upgrade. */
describe('project admin and CREATE SCHEMA', () => {
  const config = testConfig();
  const factory = new ProjectFactory(config);
  afterAll(() => factory.cleanup());

  const canCreate = (ref: string) =>
    withClient(config.databaseUrl, async (c) => {
      const { rows } = await c.query<{ ok: boolean }>(
        'SELECT has_database_privilege($1, $2, $3) AS ok',
        [adminRoleName(ref), projectDbName(ref), 'CREATE'],
      );
      return rows[0]!.ok;
    });

  it('is granted at provisioning, and to a project made before that by the upgrade', async () => {
    const project = await factory.newProject({ database: true });
    expect(await canCreate(project.ref)).toBe(true);
    await withClient(project.adminUrl, (c) => c.query('CREATE SCHEMA api; DROP SCHEMA api'));

    // An older project: no grant, and the migration that adds it not yet recorded.
    const db = projectDbName(project.ref);
    await withClient(config.databaseUrl, (c) =>
      c.query(
        `REVOKE CREATE ON DATABASE ${quoteIdent(db)} FROM ${quoteIdent(adminRoleName(project.ref))}`,
      ),
    );
    await withClient(connectionUrl(config.databaseUrl, db), (c) =>
      c.query("DELETE FROM _platform.migrations WHERE name LIKE '0007-%'"),
    );
    expect(await canCreate(project.ref)).toBe(false);
    const applied = await upgradeProjectDatabase(config.databaseUrl, project.ref);
    expect(applied).toEqual([expect.stringMatching(/^0007-/)]);
    expect(await canCreate(project.ref)).toBe(true);
  });
});
