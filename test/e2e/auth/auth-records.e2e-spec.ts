import { decodeJwt } from 'jose';
import { hashToken } from '@baseplate/auth';
import { connectionUrl, projectDbName, withClient } from '@baseplate/database';
import { request, waitFor } from '../../support/http';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

interface Tokens {
  access_token: string;
  refresh_token: string;
  user: { id: string; last_sign_in_at: string | null };
}

/**
 * What a password sign-in and a refresh leave in the project database (session, refresh
 * tokens, last sign-in, audit log, the settings a trigger sees), and what they refuse without
 * leaving anything: the rows the auth service writes, checked as the cluster admin.
 */
describe('auth sign-in and refresh records', () => {
  let f: RestFixture;
  const email = 'records@example.com';
  const password = 'secret-1';
  let userId: string;

  const db = <T>(sql: string, values: unknown[] = []) =>
    withClient(
      connectionUrl(process.env.BASEPLATE_TEST_ADMIN_URL!, projectDbName(f.project.ref)),
      async (c) => (await c.query(sql, values)).rows as T[],
    );
  const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(`${f.platform.data}/projects/${f.project.ref}`, 'POST', path, {
      body,
      headers: { apikey: f.project.anonKey, ...headers },
    });
  const signIn = () =>
    call('/auth/v1/token?grant_type=password', { email, password }, { 'user-agent': 'records/1' });
  const refresh = (token: string) =>
    call('/auth/v1/token?grant_type=refresh_token', { refresh_token: token });
  const audit = (action: string) =>
    db<{ n: number }>(
      `SELECT count(*)::int AS n FROM auth.audit_log_entries
        WHERE payload = jsonb_build_object('action', $1::text, 'actor_id', $2::text)
          AND ip_address = '127.0.0.1'`,
      [action, userId],
    ).then((rows) => rows[0]!.n);

  beforeAll(async () => {
    f = await bootRestFixture();
    await request(f.platform.control, 'PATCH', `/v1/projects/${f.project.ref}/config/auth`, {
      token: f.token,
      body: { mailer_autoconfirm: true },
    });
    await waitFor('autoconfirm on', async () => {
      const s = await request(
        `${f.platform.data}/projects/${f.project.ref}`,
        'GET',
        '/auth/v1/settings',
        { headers: { apikey: f.project.anonKey } },
      );
      return s.body.mailer_autoconfirm === true;
    });
    const up = await call('/auth/v1/signup', { email, password });
    expect(up.status).toBe(200);
    userId = up.body.user.id;
    // A trigger of the project's own on the auth tables sees the auth service's role and
    // request settings (Supabase projects hang profile rows off auth.users like this).
    await db(`
      CREATE TABLE public.auth_trigger_probe (tbl text, role text, method text, path text, search_path text);
      CREATE FUNCTION public.auth_trigger_probe() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN
        INSERT INTO public.auth_trigger_probe VALUES (TG_TABLE_NAME, current_setting('role'),
          current_setting('request.method', true), current_setting('request.path', true),
          current_setting('search_path'));
        RETURN NULL;
      END $$;
      CREATE TRIGGER probe AFTER INSERT OR UPDATE ON auth.sessions FOR EACH ROW EXECUTE FUNCTION public.auth_trigger_probe();
      CREATE TRIGGER probe AFTER INSERT OR UPDATE ON auth.users FOR EACH ROW EXECUTE FUNCTION public.auth_trigger_probe();
    `);
  });
  afterAll(() => f?.platform.close());

  it('records a password sign-in: session, refresh token, last sign-in, audit entry', async () => {
    const before = await audit('login');
    const res = await signIn();
    expect(res.status).toBe(200);
    const tokens = res.body as Tokens;
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(tokens.user.id).toBe(userId);
    const sessionId = decodeJwt(tokens.access_token).session_id as string;
    const [session] = await db<{ user_id: string; user_agent: string; ip: string }>(
      'SELECT user_id, user_agent, host(ip) AS ip FROM auth.sessions WHERE id = $1',
      [sessionId],
    );
    expect(session).toEqual({ user_id: userId, user_agent: 'records/1', ip: '127.0.0.1' });
    const stored = await db<{ token_hash: string; revoked: boolean; parent_hash: string | null }>(
      'SELECT token_hash, revoked, parent_hash FROM auth.refresh_tokens WHERE session_id = $1',
      [sessionId],
    );
    expect(stored).toEqual([
      { token_hash: hashToken(tokens.refresh_token), revoked: false, parent_hash: null },
    ]);
    const [user] = await db<{ last_sign_in_at: Date }>(
      'SELECT last_sign_in_at FROM auth.users WHERE id = $1',
      [userId],
    );
    expect(user!.last_sign_in_at.toISOString()).toBe(tokens.user.last_sign_in_at);
    expect(await audit('login')).toBe(before + 1);
  });

  it('records a refresh: the token revoked, a child, the session touched, an audit entry', async () => {
    const tokens = (await signIn()).body as Tokens;
    const sessionId = decodeJwt(tokens.access_token).session_id as string;
    const touched = () =>
      db<{ at: Date }>('SELECT updated_at AS at FROM auth.sessions WHERE id = $1', [
        sessionId,
      ]).then((r) => r[0]!.at.getTime());
    const [sessionBefore, auditBefore] = [await touched(), await audit('token_refreshed')];
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = res.body as Tokens;
    expect(decodeJwt(next.access_token)).toMatchObject({ session_id: sessionId, sub: userId });
    expect(next.user.id).toBe(userId);
    const rows = await db<{ token_hash: string; revoked: boolean; parent_hash: string | null }>(
      'SELECT token_hash, revoked, parent_hash FROM auth.refresh_tokens WHERE session_id = $1 ORDER BY id',
      [sessionId],
    );
    const old = hashToken(tokens.refresh_token);
    expect(rows).toEqual([
      { token_hash: old, revoked: true, parent_hash: null },
      { token_hash: hashToken(next.refresh_token), revoked: false, parent_hash: old },
    ]);
    expect(await touched()).toBeGreaterThan(sessionBefore);
    expect(await audit('token_refreshed')).toBe(auditBefore + 1);
  });

  it("runs the project's triggers on the auth tables as auth_admin with the request settings", async () => {
    await db('TRUNCATE public.auth_trigger_probe');
    const tokens = (await signIn()).body as Tokens;
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
    const seen = await db<Record<string, string>>(
      'SELECT DISTINCT tbl, role, method, path, search_path FROM public.auth_trigger_probe ORDER BY tbl',
    );
    // The path as routed (`/projects/<ref>` is stripped before routing).
    const settings = {
      role: 'auth_admin',
      method: 'POST',
      path: '/auth/v1/token',
      search_path: '"auth"',
    };
    expect(seen).toEqual([
      { tbl: 'sessions', ...settings },
      { tbl: 'users', ...settings },
    ]);
  });

  it('refuses a banned user without opening a session', async () => {
    const admin = { apikey: f.project.serviceKey, authorization: `Bearer ${f.project.serviceKey}` };
    const ban = await request(
      `${f.platform.data}/projects/${f.project.ref}`,
      'PUT',
      `/auth/v1/admin/users/${userId}`,
      { body: { ban_duration: '24h' }, headers: admin },
    );
    expect(ban.status).toBe(200);
    const sessions = () =>
      db<{ n: number }>('SELECT count(*)::int AS n FROM auth.sessions WHERE user_id = $1', [
        userId,
      ]).then((r) => r[0]!.n);
    const before = await sessions();
    const res = await signIn();
    expect([res.status, res.body.code]).toEqual([400, 'user_banned']);
    expect(await sessions()).toBe(before);
    await request(
      `${f.platform.data}/projects/${f.project.ref}`,
      'PUT',
      `/auth/v1/admin/users/${userId}`,
      { body: { ban_duration: 'none' }, headers: admin },
    );
    expect((await signIn()).status).toBe(200);
  });

  it("answers a deleted user's refresh token with refresh_token_not_found and changes nothing", async () => {
    const other = { email: 'gone@example.com', password };
    const up = await call('/auth/v1/signup', other);
    const tokens = up.body as Tokens;
    // Deleted behind the service's back (its sessions kept): the token must not rotate.
    await db('UPDATE auth.users SET deleted_at = now() WHERE id = $1', [tokens.user.id]);
    const res = await refresh(tokens.refresh_token);
    expect([res.status, res.body.code]).toEqual([400, 'refresh_token_not_found']);
    const rows = await db<{ revoked: boolean }>(
      'SELECT revoked FROM auth.refresh_tokens WHERE user_id = $1',
      [tokens.user.id],
    );
    expect(rows).toEqual([{ revoked: false }]);
    const logged = await db<{ n: number }>(
      `SELECT count(*)::int AS n FROM auth.audit_log_entries
        WHERE payload ->> 'actor_id' = $1 AND payload ->> 'action' = 'token_refreshed'`,
      [tokens.user.id],
    );
    expect(logged[0]!.n).toBe(0);
  });
});
