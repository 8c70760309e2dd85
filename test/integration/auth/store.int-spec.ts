import { Client } from 'pg';
import { AuthStore, hashToken } from '@baseplate/auth';
import { authenticatorPassword } from '@baseplate/config';
import {
  AUTH_ADMIN_ROLE,
  AUTHENTICATOR_ROLE,
  connectionUrl,
  projectDbName,
} from '@baseplate/database';
import { testConfig } from '@baseplate/testing';
import { ProjectFactory } from '../data-plane/project-factory';

/** Refresh-token rotation and session ends, against a real project database as auth_admin. */
describe('AuthStore', () => {
  const config = testConfig();
  const factory = new ProjectFactory(config);
  let db: Client;
  let userId: string;

  beforeAll(async () => {
    const project = await factory.newProject({ database: true });
    db = new Client({
      connectionString: connectionUrl(config.databaseUrl, projectDbName(project.ref), {
        name: AUTHENTICATOR_ROLE,
        password: authenticatorPassword(config),
      }),
    });
    await db.connect();
    await db.query(`SET ROLE ${AUTH_ADMIN_ROLE}`);
    const user = await AuthStore.createUser(db, {
      email: 'rot@example.com',
      passwordHash: 'x',
      userMetadata: {},
      confirmed: true,
    });
    userId = user.id;
  });
  afterAll(async () => {
    await db?.end();
    await factory.cleanup();
  });

  /** A rotation that must succeed (not a reuse). */
  const rotate = async (token: string) => {
    const result = await AuthStore.rotateRefreshToken(db, token);
    if ('reused' in result) throw new Error('unexpected reuse');
    return result;
  };

  const sessions = async () =>
    (await db.query('SELECT id FROM auth.sessions WHERE user_id = $1', [userId])).rows.length;

  it('refuses a second account with the same email, whatever its case', async () => {
    await expect(
      AuthStore.createUser(db, {
        email: 'rot@example.com',
        passwordHash: 'x',
        userMetadata: {},
        confirmed: true,
      }),
    ).rejects.toMatchObject({ code: 'user_already_exists', status: 422 });
  });

  it('rotates: a live token gives a child; reused within the grace window, a sibling', async () => {
    const { sessionId, refreshToken } = await AuthStore.createSession(db, userId, {});
    const first = await rotate(refreshToken);
    expect(first).toMatchObject({ userId, sessionId });
    expect(first.refreshToken).not.toBe(refreshToken);
    const again = await rotate(refreshToken);
    expect(again.sessionId).toBe(sessionId);
    expect(again.refreshToken).not.toBe(first.refreshToken);
    const stored = await db.query(
      'SELECT token_hash FROM auth.refresh_tokens WHERE session_id = $1',
      [sessionId],
    );
    // Only hashes are stored.
    expect(stored.rows.map((r) => r.token_hash)).toContain(hashToken(first.refreshToken));
    expect(JSON.stringify(stored.rows)).not.toContain(first.refreshToken);
  });

  it('revokes the whole session when a used token comes back after the grace window', async () => {
    const { sessionId, refreshToken } = await AuthStore.createSession(db, userId, {});
    const next = await rotate(refreshToken);
    await db.query(
      "UPDATE auth.refresh_tokens SET updated_at = now() - interval '1 minute' WHERE token_hash = $1",
      [hashToken(refreshToken)],
    );
    expect(await AuthStore.rotateRefreshToken(db, refreshToken)).toEqual({ reused: true });
    expect(await AuthStore.sessionExists(db, sessionId, userId)).toBe(false);
    await expect(AuthStore.rotateRefreshToken(db, next.refreshToken)).rejects.toMatchObject({
      code: 'refresh_token_not_found',
    });
  });

  it('ends sessions by scope', async () => {
    await db.query('DELETE FROM auth.sessions WHERE user_id = $1', [userId]);
    const a = await AuthStore.createSession(db, userId, {});
    await AuthStore.createSession(db, userId, {});
    await AuthStore.createSession(db, userId, {});
    await AuthStore.endSessions(db, userId, a.sessionId, 'others');
    expect(await sessions()).toBe(1);
    expect(await AuthStore.sessionExists(db, a.sessionId, userId)).toBe(true);
    await AuthStore.endSessions(db, userId, a.sessionId, 'local');
    expect(await sessions()).toBe(0);
    await AuthStore.createSession(db, userId, {});
    await AuthStore.createSession(db, userId, {});
    await AuthStore.endSessions(db, userId, a.sessionId, 'global');
    expect(await sessions()).toBe(0);
  });
});
