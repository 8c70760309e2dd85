import { Client } from 'pg';
import { AuthStatements, AuthStore, hashToken } from '@baseplate/auth';
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

  it('signs in in one statement: session, first token, last sign-in, audit entry, rehash', async () => {
    const { user, session } = await AuthStore.run(
      db,
      AuthStatements.signIn({ userId, userAgent: 'store/1', ip: '10.0.0.1', rehash: 'new-hash' }),
    );
    expect(user).toMatchObject({ id: userId, email: 'rot@example.com' });
    expect(user.last_sign_in_at).toBeInstanceOf(Date);
    expect(user.raw_app_meta_data).toEqual({ provider: 'email', providers: ['email'] });
    const [row] = (
      await db.query(
        `SELECT s.user_agent, host(s.ip) AS ip, t.token_hash, t.parent_hash, u.encrypted_password
           FROM auth.sessions s JOIN auth.refresh_tokens t ON t.session_id = s.id
           JOIN auth.users u ON u.id = s.user_id WHERE s.id = $1`,
        [session.sessionId],
      )
    ).rows;
    expect(row).toEqual({
      user_agent: 'store/1',
      ip: '10.0.0.1',
      token_hash: hashToken(session.refreshToken),
      parent_hash: null,
      encrypted_password: 'new-hash',
    });
    const logged = await db.query(
      `SELECT payload, ip_address FROM auth.audit_log_entries
        WHERE payload ->> 'action' = 'login' AND payload ->> 'actor_id' = $1`,
      [userId],
    );
    expect(logged.rows).toEqual([
      { payload: { action: 'login', actor_id: userId }, ip_address: '10.0.0.1' },
    ]);
    // Without a rehash the stored hash stays.
    await AuthStore.run(db, AuthStatements.signIn({ userId }));
    const kept = await db.query('SELECT encrypted_password FROM auth.users WHERE id = $1', [
      userId,
    ]);
    expect(kept.rows[0].encrypted_password).toBe('new-hash');
  });

  it("rotates nothing for a deleted user's token: not found, the token still live", async () => {
    const gone = await AuthStore.createUser(db, {
      email: 'gone@example.com',
      passwordHash: 'x',
      userMetadata: {},
      confirmed: true,
    });
    const { refreshToken } = await AuthStore.createSession(db, gone.id, {});
    await db.query('UPDATE auth.users SET deleted_at = now() WHERE id = $1', [gone.id]);
    await expect(AuthStore.rotateRefreshToken(db, refreshToken, {})).rejects.toMatchObject({
      code: 'refresh_token_not_found',
    });
    const tokens = await db.query('SELECT revoked FROM auth.refresh_tokens WHERE user_id = $1', [
      gone.id,
    ]);
    expect(tokens.rows).toEqual([{ revoked: false }]);
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
