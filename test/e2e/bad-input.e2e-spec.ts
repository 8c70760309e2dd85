import { request } from '../support/http';
import { bootPlatform, Platform, TestProject } from '../support/platform';

/** Bad input anywhere in the management API is a 4xx JSON error with a string `error`, never a 500. */
describe('bad input', () => {
  let platform: Platform;
  let token: string;
  let project: TestProject;

  beforeAll(async () => {
    platform = await bootPlatform();
    ({ token } = await platform.newAccount());
    project = await platform.newProject(token);
  });
  afterAll(() => platform.close());

  type Case = [
    label: string,
    method: string,
    path: () => string,
    opts: { raw?: string; body?: unknown; auth?: boolean },
    status: number,
  ];
  const cases: Case[] = [
    ['malformed JSON on signup', 'POST', () => '/v1/signup', { raw: '{"email": ' }, 400],
    [
      'malformed JSON on create project',
      'POST',
      () => '/v1/projects',
      { raw: '{name: x}', auth: true },
      400,
    ],
    [
      'signup without password',
      'POST',
      () => '/v1/signup',
      { body: { email: 'x@example.com' } },
      400,
    ],
    [
      'signup with a numeric email',
      'POST',
      () => '/v1/signup',
      { body: { email: 42, password: 'long enough pw' } },
      400,
    ],
    [
      'signup with a short password',
      'POST',
      () => '/v1/signup',
      { body: { email: 'y@example.com', password: 'short' } },
      400,
    ],
    ['signup with an array body', 'POST', () => '/v1/signup', { body: [1, 2] }, 400],
    ['login without fields', 'POST', () => '/v1/login', { body: {} }, 400],
    [
      'login with wrong-typed password',
      'POST',
      () => '/v1/login',
      { body: { email: 'x@example.com', password: 7 } },
      400,
    ],
    ['create project without name', 'POST', () => '/v1/projects', { body: {}, auth: true }, 400],
    [
      'create project with a numeric name',
      'POST',
      () => '/v1/projects',
      { body: { name: 12 }, auth: true },
      400,
    ],
    [
      'create project with an over-long name',
      'POST',
      () => '/v1/projects',
      { body: { name: 'x'.repeat(65) }, auth: true },
      400,
    ],
    [
      'access token without name',
      'POST',
      () => '/v1/access-tokens',
      { body: { name: '' }, auth: true },
      400,
    ],
    ['unknown ref', 'GET', () => '/v1/projects/abcdefghijklmnopqrst', { auth: true }, 404],
    ['malformed ref', 'GET', () => "/v1/projects/'; drop table projects; --", { auth: true }, 404],
    [
      'keys of an unknown ref',
      'GET',
      () => '/v1/projects/zzzzzzzzzzzzzzzzzzzz/api-keys',
      { auth: true },
      404,
    ],
    [
      'query without query',
      'POST',
      () => `/v1/projects/${project.ref}/database/query`,
      { body: {}, auth: true },
      400,
    ],
    [
      'query with a number',
      'POST',
      () => `/v1/projects/${project.ref}/database/query`,
      { body: { query: 1 }, auth: true },
      400,
    ],
    [
      'delete secrets with numbers',
      'DELETE',
      () => `/v1/projects/${project.ref}/secrets`,
      { body: [1], auth: true },
      400,
    ],
    [
      'revoke a token with a malformed id',
      'DELETE',
      () => '/v1/access-tokens/not-a-uuid',
      { auth: true },
      400,
    ],
    ['unknown route', 'GET', () => '/v2/whatever', { auth: true }, 404],
    [
      'oversized body',
      'POST',
      () => `/v1/projects/${project.ref}/database/query`,
      { raw: JSON.stringify({ query: 'x'.repeat(3_000_000) }), auth: true },
      413,
    ],
  ];

  // PATCH config/auth: `null` clears a nullable setting, but these have no "unset" state.
  const authConfig = () => `/v1/projects/${project.ref}/config/auth`;
  for (const field of [
    'site_url',
    'uri_allow_list',
    'mailer_autoconfirm',
    'jwt_exp',
    'password_min_length',
  ]) {
    cases.push([
      `auth config with ${field}: null`,
      'PATCH',
      authConfig,
      {
        body: { [field]: null },
        auth: true,
      },
      400,
    ]);
  }

  // PostgreSQL refuses NUL in text (22021): wherever a string reaches it, that is a 400.
  const NUL = 'a\u0000b';
  cases.push(
    [
      'signup with a NUL in the email',
      'POST',
      () => '/v1/signup',
      { body: { email: `nul${NUL}@example.com`, password: 'long enough pw' } },
      400,
    ],
    [
      'login with a NUL in the email',
      'POST',
      () => '/v1/login',
      { body: { email: `nul${NUL}@example.com`, password: 'long enough pw' } },
      400,
    ],
    [
      'access token with a NUL in the name',
      'POST',
      () => '/v1/access-tokens',
      { body: { name: NUL }, auth: true },
      400,
    ],
    [
      'create project with a NUL in the name',
      'POST',
      () => '/v1/projects',
      { body: { name: NUL }, auth: true },
      400,
    ],
    [
      'secret with a NUL in the value',
      'POST',
      () => `/v1/projects/${project.ref}/secrets`,
      { body: [{ name: 'NUL_VALUE', value: NUL }], auth: true },
      400,
    ],
    [
      'secret with a NUL in the name',
      'POST',
      () => `/v1/projects/${project.ref}/secrets`,
      { body: [{ name: NUL, value: 'x' }], auth: true },
      400,
    ],
    [
      'delete secrets with a NUL in a name',
      'DELETE',
      () => `/v1/projects/${project.ref}/secrets`,
      { body: [NUL], auth: true },
      400,
    ],
    [
      'query with a NUL',
      'POST',
      () => `/v1/projects/${project.ref}/database/query`,
      { body: { query: `select '${NUL}'` }, auth: true },
      400,
    ],
  );
  for (const field of [
    'site_url',
    'uri_allow_list',
    'smtp_host',
    'smtp_user',
    'smtp_admin_email',
    'smtp_sender_name',
  ]) {
    cases.push([
      `auth config with a NUL in ${field}`,
      'PATCH',
      authConfig,
      {
        body: { [field]: `https://x.example.com/${NUL}` },
        auth: true,
      },
      400,
    ]);
  }

  it.each(cases)('%s', async (_label, method, path, opts, status) => {
    const res = await request(platform.control, method, path(), {
      raw: opts.raw,
      body: opts.body,
      token: opts.auth ? token : undefined,
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(typeof res.body.error).toBe('string');
    expect(typeof res.body.message).toBe('string');
  });

  it('data plane: no project → 400, unknown project → 404, malformed JSON → 400, unknown route → 404', async () => {
    const none = await request(platform.data, 'GET', '/rest/v1/todos');
    expect(none.status).toBe(400);
    const unknown = await request(
      platform.data,
      'GET',
      '/projects/abcdefghijklmnopqrst/rest/v1/todos',
      { headers: { apikey: project.anonKey } },
    );
    expect(unknown.status).toBe(404);
    const malformed = await request(
      platform.data,
      'POST',
      `/projects/${project.ref}/rest/v1/todos`,
      {
        raw: '{"task":',
        headers: { apikey: project.anonKey },
      },
    );
    expect([400, 404]).toContain(malformed.status);
    const route = await request(platform.data, 'GET', '/nothing-here');
    expect(route.status).toBe(404);
    for (const res of [none, unknown, malformed, route])
      expect(typeof res.body.error).toBe('string');
  });
});
