import { Client } from 'pg';
import { adminRoleName, projectDatabaseExists, withClient } from '@baseplate/database';
import { request, waitFor } from '../support/http';
import { bootPlatform, Platform, waitForStatus } from '../support/platform';

const adminUrl = () => process.env.BASEPLATE_TEST_ADMIN_URL!;

describe('project lifecycle over HTTP', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await bootPlatform();
  });
  afterAll(() => platform.close());

  it('signs up, logs in, creates a project, uses it, deletes it', async () => {
    const { control, data } = platform;
    const email = `lifecycle-${Date.now()}@example.com`;
    const signup = await request(control, 'POST', '/v1/signup', {
      body: { email, password: 'a long password' },
    });
    expect(signup.status).toBe(201);
    expect(signup.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email });

    const login = await request(control, 'POST', '/v1/login', {
      body: { email, password: 'a long password' },
    });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 86400,
    });
    const token = login.body.access_token as string;

    const created = await request(control, 'POST', '/v1/projects', {
      token,
      body: { name: 'lifecycle' },
    });
    expect(created.status).toBe(201);
    const ref = created.body.id as string;
    expect(ref).toMatch(/^[a-z0-9]{20}$/);
    expect(created.body).toMatchObject({
      name: 'lifecycle',
      status: 'COMING_UP',
      endpoint: `${platform.config.publicUrl}/projects/${ref}`,
    });
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);

    const active = await waitForStatus(control, token, ref, 'ACTIVE_HEALTHY');
    expect(active.progress).toBe(100);

    const list = await request(control, 'GET', '/v1/projects', { token });
    expect(list.body.map((p: { id: string }) => p.id)).toEqual([ref]);

    const keys = await request(control, 'GET', `/v1/projects/${ref}/api-keys`, { token });
    expect(keys.status).toBe(200);
    expect(keys.body.map((k: { name: string }) => k.name)).toEqual(['anon', 'service_role']);
    for (const k of keys.body) expect(k.api_key.split('.')).toHaveLength(3);

    const sql = await request(control, 'POST', `/v1/projects/${ref}/database/query`, {
      token,
      body: {
        query:
          "create table todos (id serial primary key, task text); insert into todos (task) values ('a'), ('b'); select id, task from todos order by id",
      },
    });
    expect(sql.status).toBe(201);
    expect(sql.body).toEqual([
      { id: 1, task: 'a' },
      { id: 2, task: 'b' },
    ]);
    const whoami = await request(control, 'POST', `/v1/projects/${ref}/database/query`, {
      token,
      body: { query: 'select current_user as who, current_database() as db' },
    });
    expect(whoami.body).toEqual([{ who: adminRoleName(ref), db: `proj_${ref}` }]);

    const health = await request(data, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      service: 'data-plane',
      timestamp: expect.any(String),
    });
    expect(new Date(health.body.timestamp).toISOString()).toBe(health.body.timestamp);

    const anonKey = keys.body[0].api_key as string;
    const viaProject = await request(data, 'GET', `/projects/${ref}/rest/v1/todos`, {
      headers: { apikey: anonKey },
    });
    expect(viaProject.status).not.toBe(401);

    expect(await projectDatabaseExists(adminUrl(), ref)).toBe(true);
    const deleted = await request(control, 'DELETE', `/v1/projects/${ref}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: ref, status: 'GOING_DOWN' });

    await waitFor(
      'project row to go',
      async () => (await request(control, 'GET', `/v1/projects/${ref}`, { token })).status === 404,
    );
    expect(await projectDatabaseExists(adminUrl(), ref)).toBe(false);
    const role = await withClient(adminUrl(), (c: Client) =>
      c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [adminRoleName(ref)]),
    );
    expect(role.rowCount).toBe(0);
    const gone = await request(data, 'GET', `/projects/${ref}/rest/v1/todos`, {
      headers: { apikey: anonKey },
    });
    expect(gone.status).toBe(404);
    expect(typeof gone.body.error).toBe('string');
  });

  it('accepts a personal access token as Bearer, lists it without its value, and stops accepting it once revoked', async () => {
    const { control } = platform;
    const { token } = await platform.newAccount();
    const created = await request(control, 'POST', '/v1/access-tokens', {
      token,
      body: { name: 'ci' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'ci',
      token: expect.stringMatching(/^bp_pat_/),
    });
    const pat = created.body.token as string;

    expect((await request(control, 'GET', '/v1/projects', { token: pat })).status).toBe(200);
    const listed = await request(control, 'GET', '/v1/access-tokens', { token: pat });
    expect(listed.body).toEqual([
      {
        id: created.body.id,
        name: 'ci',
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      },
    ]);
    expect(listed.text).not.toContain(pat);

    expect(
      (await request(control, 'DELETE', `/v1/access-tokens/${created.body.id}`, { token })).status,
    ).toBe(204);
    const after = await request(control, 'GET', '/v1/projects', { token: pat });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('Unauthorized');
  });

  it('answers wrong password and unknown email with the same 401', async () => {
    const { control } = platform;
    const { email } = await platform.newAccount();
    const wrong = await request(control, 'POST', '/v1/login', {
      body: { email, password: 'not the password' },
    });
    const unknown = await request(control, 'POST', '/v1/login', {
      body: { email: `nobody-${email}`, password: 'whatever' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ error: 'Unauthorized', code: 'invalid_credentials' });
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    const { control } = platform;
    const { email } = await platform.newAccount();
    const again = await request(control, 'POST', '/v1/signup', {
      body: { email: email.toUpperCase(), password: 'another password' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('email_exists');
  });
});
