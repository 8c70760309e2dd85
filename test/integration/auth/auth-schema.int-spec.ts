import { Client } from 'pg';
import { authenticatorPassword } from '@baseplate/config';
import {
  AUTH_ADMIN_ROLE,
  AUTHENTICATOR_ROLE,
  connectionUrl,
  projectDbName,
} from '@baseplate/database';
import { testConfig } from '@baseplate/testing';
import { ProjectFactory } from '../data-plane/project-factory';

/** The auth tables of a project database and who may touch them. */
describe('auth schema: sessions, refresh and one-time tokens, as auth_admin only', () => {
  const config = testConfig();
  const factory = new ProjectFactory(config);
  let client: Client;

  beforeAll(async () => {
    const project = await factory.newProject({ database: true });
    // Connected as the data plane is: authenticator, which may switch to auth_admin.
    client = new Client({
      connectionString: connectionUrl(config.databaseUrl, projectDbName(project.ref), {
        name: AUTHENTICATOR_ROLE,
        password: authenticatorPassword(config),
      }),
    });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await factory.cleanup();
  });

  const as = async <T>(role: string, fn: () => Promise<T>): Promise<T> => {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL ROLE ${role}`);
      return await fn();
    } finally {
      await client.query('ROLLBACK');
    }
  };

  it('lets auth_admin create a user, a session and its refresh token', async () => {
    const rows = await as(AUTH_ADMIN_ROLE, async () => {
      const user = await client.query<{ id: string }>(
        "INSERT INTO auth.users (email, encrypted_password) VALUES ('a@example.com', 'x') RETURNING id",
      );
      const session = await client.query<{ id: string }>(
        'INSERT INTO auth.sessions (user_id) VALUES ($1) RETURNING id',
        [user.rows[0]!.id],
      );
      await client.query(
        'INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id) VALUES ($1, $2, $3)',
        ['h1', session.rows[0]!.id, user.rows[0]!.id],
      );
      return client.query('SELECT aud, role, is_anonymous FROM auth.users');
    });
    expect(rows.rows).toEqual([
      { aud: 'authenticated', role: 'authenticated', is_anonymous: false },
    ]);
  });

  it.each(['anon', 'authenticated', 'service_role'])(
    'keeps %s out of the auth tables',
    async (role) => {
      for (const table of [
        'users',
        'sessions',
        'refresh_tokens',
        'one_time_tokens',
        'audit_log_entries',
      ]) {
        await expect(
          as(role, () => client.query(`SELECT 1 FROM auth.${table}`)),
        ).rejects.toMatchObject({
          code: '42501',
        });
      }
    },
  );
});
