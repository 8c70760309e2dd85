import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@baseplate/config';
import { generateProjectRef } from '@baseplate/security';
import { testConfig } from '@baseplate/testing';
import { startDataPlane } from './data-plane';
import { client, expectPassedAuth, expectUnauthorized, withKeys } from './http-helpers';
import { ProjectFactory, TestProject } from './project-factory';

// The 503 test waits out the one-second cache of inactive projects.
jest.setTimeout(30_000);

describe('data plane: project resolution and key verification', () => {
  let config: AppConfig;
  let app: NestFastifyApplication;
  let base: string;
  let factory: ProjectFactory;
  let a: TestProject;
  let b: TestProject;
  const call: ReturnType<typeof client> = (path, init) => client(base)(path, init);

  beforeAll(async () => {
    config = testConfig();
    ({ app, baseUrl: base } = await startDataPlane(config));
    factory = new ProjectFactory(config);
    [a, b] = await Promise.all([factory.newProject(), factory.newProject()]);
  });

  afterAll(async () => {
    await app?.close();
    await factory?.cleanup();
  });

  it('GET /health answers without a key', async () => {
    const reply = await call('/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ok',
      service: 'data-plane',
      timestamp: expect.any(String),
    });
    const timestamp = reply.body.timestamp as string;
    expect(new Date(timestamp).toISOString()).toBe(timestamp);
  });

  it('answers an unknown route with a JSON 404', async () => {
    const reply = await call('/definitely/not/here');
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      error: 'Not Found',
      code: 'not_found',
      message: 'No route for GET /definitely/not/here',
    });
  });

  it('answers a CORS preflight without any key, allowing and exposing the supabase-js headers', async () => {
    const res = await fetch(`${base}/projects/${a.ref}/rest/v1/todos`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example.test',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers':
          'apikey, authorization, x-client-info, content-type, x-my-header',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example.test');
    const methods = res.headers.get('access-control-allow-methods')!.split(/,\s*/);
    expect(methods).toEqual(
      expect.arrayContaining(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
    );
    const allowed = res.headers.get('access-control-allow-headers')!.split(/,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining([
        'apikey',
        'authorization',
        'x-client-info',
        'content-type',
        'x-supabase-api-version',
        'accept-profile',
        'content-profile',
        'prefer',
        'accept',
        'x-upsert',
        'x-metadata',
        'cache-control',
        'content-encoding',
        'x-region',
        'x-retry-count',
        'traceparent',
        'tracestate',
        'baggage',
        'x-my-header',
      ]),
    );
  });

  it('exposes the response headers the client reads, on errors too', async () => {
    const reply = await call(`/projects/${a.ref}/rest/v1/todos`, {
      headers: { origin: 'http://app.example.test' },
    });
    expectUnauthorized(reply);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://app.example.test');
    const exposed = reply.headers.get('access-control-expose-headers')!.split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining([
        'content-range',
        'x-total-count',
        'link',
        'x-supabase-api-version',
        'x-relay-error',
      ]),
    );
  });

  it('needs a project: none given is a 400', async () => {
    const reply = await call('/rest/v1/todos');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'Bad Request', code: 'project_not_given' });
    expect((await call('/auth/v1/user', withKeys('not-a-jwt'))).status).toBe(400);
  });

  it('answers 404 for an unknown or malformed ref, before looking at keys', async () => {
    const unknown = await call(
      `/projects/${generateProjectRef()}/rest/v1/todos`,
      withKeys(a.anonKey),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'Not Found', code: 'project_not_found' });
    const malformed = await call('/projects/Not_A-Ref/rest/v1/todos');
    expect(malformed.status).toBe(404);
    expect(malformed.body).toMatchObject({ code: 'project_not_found' });
  });

  it('answers 503 for a project that is not active yet, without caching that for long', async () => {
    const coming = await factory.newProject({ status: 'COMING_UP' });
    const reply = await call(`/projects/${coming.ref}/rest/v1/todos`, withKeys(coming.anonKey));
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: 'Service Unavailable', code: 'project_not_ready' });
    expect(reply.body.message).toMatch(/COMING_UP/);
    // The worker finishes provisioning but publishes nothing: seen within about a second.
    await factory.setStatus(coming.ref, 'ACTIVE_HEALTHY');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectPassedAuth(await call(`/projects/${coming.ref}/rest/v1/todos`, withKeys(coming.anonKey)));
  });

  it('accepts the anon and service keys of the project named in the path', async () => {
    const path = `/projects/${a.ref}/rest/v1/todos`;
    expectPassedAuth(await call(path, withKeys(a.anonKey)));
    expectPassedAuth(await call(path, withKeys(a.serviceKey, a.serviceKey)));
    expectPassedAuth(await call(path, withKeys(undefined, a.anonKey)));
    expectPassedAuth(await call(path, withKeys(a.anonKey, await factory.userToken(a))));
  });

  it('takes the ref from the apikey, else from the Bearer token, when the path has none', async () => {
    expectPassedAuth(await call('/rest/v1/todos', withKeys(a.anonKey)));
    expectPassedAuth(await call('/storage/v1/bucket', withKeys(undefined, b.serviceKey)));
    expectPassedAuth(await call('/auth/v1/user', withKeys(a.anonKey, await factory.userToken(a))));
    // The apikey chooses the project; a Bearer token of another project then fails.
    expectUnauthorized(await call('/rest/v1/todos', withKeys(a.anonKey, b.anonKey)));
  });

  it('reads the ref of functions path form A', async () => {
    expectPassedAuth(
      await call(`/functions/v1/${a.ref}/hello`, {
        method: 'POST',
        ...withKeys(undefined, a.serviceKey),
      }),
    );
    expectUnauthorized(
      await call(`/functions/v1/${a.ref}/hello`, {
        method: 'POST',
        ...withKeys(undefined, b.serviceKey),
      }),
    );
  });

  it("refuses project A's keys on project B's path", async () => {
    const path = `/projects/${b.ref}/rest/v1/todos`;
    expectUnauthorized(await call(path, withKeys(a.serviceKey)));
    expectUnauthorized(await call(path, withKeys(undefined, a.serviceKey)));
    expectUnauthorized(await call(path, withKeys(b.anonKey, a.serviceKey)));
    expectUnauthorized(
      await call(
        `/projects/${b.ref}/auth/v1/user`,
        withKeys(b.anonKey, await factory.userToken(a)),
      ),
    );
  });

  it('refuses missing, tampered, expired and garbage credentials with 401, never falling back to anon', async () => {
    const path = `/projects/${a.ref}/rest/v1/todos`;
    const [header, , signature] = a.anonKey.split('.');
    const elevated = Buffer.from(
      JSON.stringify({ role: 'service_role', ref: a.ref, iss: 'baseplate' }),
    ).toString('base64url');
    const cases: RequestInit[] = [
      {},
      withKeys(`${header}.${elevated}.${signature}`),
      withKeys(a.anonKey.slice(0, -2) + (a.anonKey.endsWith('AA') ? 'BB' : 'AA')),
      withKeys(await factory.userToken(a, {}, -120)),
      withKeys(a.anonKey, await factory.userToken(a, {}, -120)),
      withKeys('garbage'),
      withKeys(a.anonKey, 'garbage'),
      {
        headers: {
          apikey: a.anonKey,
          authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
        },
      },
    ];
    for (const init of cases) expectUnauthorized(await call(path, init));
    expect(
      (await call(path, withKeys(a.anonKey, await factory.userToken(a, {}, -120)))).body.message,
    ).toMatch(/expired/);
  });

  it('refuses a validly signed token whose role is not an API role', async () => {
    const path = `/projects/${a.ref}/rest/v1/todos`;
    expectUnauthorized(
      await call(path, withKeys(a.anonKey, await factory.userToken(a, { role: 'postgres' }))),
    );
    expectUnauthorized(
      await call(path, withKeys(await factory.userToken(a, { role: 'authenticator' }))),
    );
    expectUnauthorized(
      await call(path, withKeys(a.anonKey, await factory.userToken(a, { ref: undefined }))),
    );
  });

  it('answers a malformed JSON body with a JSON 400, and takes an empty JSON body as no body', async () => {
    const post = (body: string) =>
      call(`/projects/${a.ref}/auth/v1/logout`, {
        method: 'POST',
        headers: { apikey: a.anonKey, 'content-type': 'application/json;charset=UTF-8' },
        body,
      });
    const bad = await post('{"email": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'Bad Request',
      code: 'bad_request',
      message: 'Request body is not valid JSON',
    });
    expectPassedAuth(await post(''));
    expect((await post('{"__proto__": {"admin": true}}')).status).toBe(400);
  });

  it('checks the key before the body: a bad key with a bad body is a 401', async () => {
    const reply = await call(`/projects/${a.ref}/rest/v1/todos`, {
      method: 'POST',
      headers: { apikey: 'garbage', 'content-type': 'application/json' },
      body: '{',
    });
    expectUnauthorized(reply);
  });

  it('answers 500 with nothing internal when a project context cannot be read', async () => {
    const broken = await factory.newProject();
    await factory.corruptSecret(broken.ref);
    const reply = await call(`/projects/${broken.ref}/rest/v1/todos`, withKeys(broken.anonKey));
    expect(reply.status).toBe(500);
    // Exactly these keys: nothing internal. Under /rest/v1 PostgREST's details and hint too.
    expect(reply.body).toEqual({
      error: 'Internal Server Error',
      code: 'internal_error',
      message: 'Internal server error',
      details: null,
      hint: null,
    });
  });
});
