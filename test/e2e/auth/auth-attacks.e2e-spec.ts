import { SignJWT, decodeJwt } from 'jose';
import { request, waitFor } from '../../support/http';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/** Forged, foreign, expired and replayed credentials, and hostile input: each a clean 4xx. */
describe('auth attacks', () => {
  let f: RestFixture;
  let session: { access_token: string; refresh_token: string; user: { id: string } };
  const email = 'target@example.com';

  beforeAll(async () => {
    f = await bootRestFixture();
    await request(f.platform.control, 'PATCH', `/v1/projects/${f.project.ref}/config/auth`, {
      token: f.token,
      body: { mailer_autoconfirm: true },
    });
    await waitFor('autoconfirm on', async () => {
      const s = await call('GET', '/auth/v1/settings');
      return s.body.mailer_autoconfirm === true;
    });
    const signup = await call('POST', '/auth/v1/signup', { body: { email, password: 'secret-1' } });
    expect(signup.status).toBe(200);
    session = signup.body;
  });
  afterAll(() => f?.platform.close());

  const base = () => `${f.platform.data}/projects/${f.project.ref}`;
  function call(
    method: string,
    path: string,
    options: {
      body?: unknown;
      token?: string;
      raw?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    return request(base(), method, path, {
      ...options,
      headers: { apikey: f.project.anonKey, ...options.headers },
    });
  }
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

  it('refuses tokens forged, foreign, unsigned, expired or with a raised role', async () => {
    const claims = decodeJwt(session.access_token);
    const now = Math.floor(Date.now() / 1000);
    const sign = (payload: object, secret: string) =>
      new SignJWT(payload as Record<string, unknown>)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(new TextEncoder().encode(secret));
    const other = await f.platform.newProject(f.token, 'other');
    const [, payload] = session.access_token.split('.');
    const tampered = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const cases: Array<[string, string]> = [
      ['another secret', await sign(claims, 'x'.repeat(40))],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`],
      ['expired', await sign({ ...claims, iat: now - 7200, exp: now - 3600 }, 'unused')],
      [
        'role raised, signature kept',
        `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...tampered, role: 'service_role' })}.${session.access_token.split('.')[2]}`,
      ],
      ["another project's anon key", other.anonKey],
    ];
    for (const [what, token] of cases) {
      const res = await call('GET', '/auth/v1/user', { token });
      expect({ what, status: res.status }).toEqual({ what, status: 401 });
    }
    const admin = await call('GET', '/auth/v1/admin/users', { token: session.access_token });
    expect([admin.status, admin.body.code]).toEqual([403, 'not_admin']);
  });

  it('revokes the session when a used refresh token comes back after the grace window', async () => {
    const login = await call('POST', '/auth/v1/token?grant_type=password', {
      body: { email, password: 'secret-1' },
    });
    const first = login.body.refresh_token as string;
    const rotated = await call('POST', '/auth/v1/token?grant_type=refresh_token', {
      body: { refresh_token: first },
    });
    expect(rotated.status).toBe(200);
    // Within the grace window a parallel tab may present it again.
    const tab = await call('POST', '/auth/v1/token?grant_type=refresh_token', {
      body: { refresh_token: first },
    });
    expect(tab.status).toBe(200);
    // A thief replaying it after the window (10 s: waited out, the tables are auth_admin's only).
    await new Promise((r) => setTimeout(r, 10_500));
    const replay = await call('POST', '/auth/v1/token?grant_type=refresh_token', {
      body: { refresh_token: first },
    });
    expect([replay.status, replay.body.code]).toEqual([400, 'refresh_token_already_used']);
    const afterRevoke = await call('GET', '/auth/v1/user', { token: rotated.body.access_token });
    expect(afterRevoke.body.code).toBe('session_not_found');
    const child = await call('POST', '/auth/v1/token?grant_type=refresh_token', {
      body: { refresh_token: rotated.body.refresh_token },
    });
    expect([child.status, child.body.code]).toEqual([400, 'refresh_token_not_found']);
  }, 30_000);

  it('answers hostile emails and bodies with 4xx, never touching other rows', async () => {
    const hostile = [
      "x@example.com'; DROP TABLE auth.users; --",
      'x@example.com\r\nBcc: victim@example.com',
      `${'a'.repeat(300)}@example.com`,
      { $ne: null },
      ['target@example.com'],
    ];
    for (const value of hostile) {
      const signup = await call('POST', '/auth/v1/signup', {
        body: { email: value, password: 'secret-1' },
      });
      expect({ value, status: signup.status, code: signup.body.code }).toEqual({
        value,
        status: 400,
        code: 'validation_failed',
      });
      const login = await call('POST', '/auth/v1/token?grant_type=password', {
        body: { email: value, password: 'secret-1' },
      });
      expect({ value, status: login.status }).toEqual({ value, status: 400 });
    }
    const malformed = await call('POST', '/auth/v1/signup', { raw: '{"email":' });
    expect(malformed.status).toBe(400);
    const grant = await call('POST', '/auth/v1/token?grant_type=magic', { body: {} });
    expect([grant.status, grant.body.code]).toEqual([400, 'unsupported_grant_type']);
    // The target account still signs in.
    const ok = await call('POST', '/auth/v1/token?grant_type=password', {
      body: { email, password: 'secret-1' },
    });
    expect(ok.status).toBe(200);
  });
});
