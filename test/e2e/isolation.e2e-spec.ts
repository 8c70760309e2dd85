import { request } from '../support/http';
import { bootPlatform, Platform, TestProject } from '../support/platform';

describe('isolation between accounts and projects', () => {
  let platform: Platform;
  let a: { token: string };
  let b: { token: string };
  let projectA: TestProject;
  let projectB: TestProject;

  beforeAll(async () => {
    platform = await bootPlatform();
    [a, b] = await Promise.all([platform.newAccount(), platform.newAccount()]);
    [projectA, projectB] = await Promise.all([
      platform.newProject(a.token, 'A'),
      platform.newProject(b.token, 'B'),
    ]);
  });
  afterAll(() => platform.close());

  // Every management route of a project, as account B, on account A's project: 404, as if it did not exist.
  // Every row has all three cells: jest treats a test function with more parameters than
  // its row as callback-style and would wait for a `done` that never comes.
  const routes: [string, string, unknown][] = [
    ['GET', '', undefined],
    ['DELETE', '', undefined],
    ['GET', '/api-keys', undefined],
    ['POST', '/api-keys/rotate', undefined],
    ['GET', '/secrets', undefined],
    ['POST', '/secrets', [{ name: 'X', value: 'y' }]],
    ['DELETE', '/secrets', ['X']],
    ['GET', '/config/auth', undefined],
    ['PATCH', '/config/auth', { mailer_autoconfirm: true }],
    ['GET', '/auth/emails', undefined],
    ['GET', '/functions', undefined],
    ['POST', '/functions', { slug: 'x', name: 'x', body: 'module.exports = async () => 1' }],
    ['GET', '/functions/x', undefined],
    ['PATCH', '/functions/x', { name: 'y' }],
    ['GET', '/functions/x/body', undefined],
    ['GET', '/functions/x/logs', undefined],
    ['DELETE', '/functions/x', undefined],
    ['GET', '/config/functions', undefined],
    ['PATCH', '/config/functions', { timeout_ms: 1000 }],
    ['POST', '/database/query', { query: 'select 1' }],
  ];

  it.each(routes)("account B gets 404 for %s <A's project>%s", async (method, suffix, body) => {
    const res = await request(platform.control, method, `/v1/projects/${projectA.ref}${suffix}`, {
      token: b.token,
      body,
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Not Found', code: 'project_not_found' });
  });

  it("lists only the caller's own projects", async () => {
    const listed = await request(platform.control, 'GET', '/v1/projects', { token: b.token });
    expect(listed.body.map((p: { id: string }) => p.id)).toEqual([projectB.ref]);
    // A's project is still there and still A's.
    const own = await request(platform.control, 'GET', `/v1/projects/${projectA.ref}`, {
      token: a.token,
    });
    expect(own.body.status).toBe('ACTIVE_HEALTHY');
  });

  it('refuses every /v1 route without a valid token', async () => {
    for (const token of [undefined, 'garbage', `${a.token}x`, projectA.serviceKey]) {
      const res = await request(platform.control, 'GET', '/v1/projects', { token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Unauthorized');
    }
  });

  it("rejects project A's keys on project B's paths", async () => {
    for (const key of [projectA.serviceKey, projectA.anonKey]) {
      const res = await request(
        platform.data,
        'GET',
        `/projects/${projectB.ref}/rest/v1/anything`,
        {
          headers: { apikey: key, authorization: `Bearer ${key}` },
        },
      );
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Unauthorized');
    }
    const own = await request(platform.data, 'GET', `/projects/${projectB.ref}/rest/v1/anything`, {
      headers: { apikey: projectB.serviceKey },
    });
    expect(own.status).not.toBe(401);
  });

  it('rejects rotated keys at once and accepts the new ones', async () => {
    const path = `/projects/${projectA.ref}/rest/v1/anything`;
    const before = await request(platform.data, 'GET', path, {
      headers: { apikey: projectA.serviceKey },
    });
    expect(before.status).not.toBe(401);

    const rotated = await request(
      platform.control,
      'POST',
      `/v1/projects/${projectA.ref}/api-keys/rotate`,
      { token: a.token },
    );
    expect(rotated.status).toBe(200);
    const newService = rotated.body.find((k: { name: string }) => k.name === 'service_role')
      .api_key as string;
    expect(newService).not.toBe(projectA.serviceKey);

    for (const old of [projectA.serviceKey, projectA.anonKey]) {
      const res = await request(platform.data, 'GET', path, { headers: { apikey: old } });
      expect(res.status).toBe(401);
    }
    const fresh = await request(platform.data, 'GET', path, { headers: { apikey: newService } });
    expect(fresh.status).not.toBe(401);

    const listed = await request(platform.control, 'GET', `/v1/projects/${projectA.ref}/api-keys`, {
      token: a.token,
    });
    expect(listed.body).toEqual(rotated.body);
    // B's keys are untouched by A's rotation.
    const other = await request(
      platform.data,
      'GET',
      `/projects/${projectB.ref}/rest/v1/anything`,
      {
        headers: { apikey: projectB.serviceKey },
      },
    );
    expect(other.status).not.toBe(401);
  });
});
