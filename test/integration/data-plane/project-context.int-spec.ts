import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@baseplate/config';
import { testConfig } from '@baseplate/testing';
import { startDataPlane } from './data-plane';
import { ProbeModule } from './probe.module';
import { ProjectFactory, TestProject } from './project-factory';

// Creating a database from the template can take seconds on a busy shared cluster.
jest.setTimeout(30_000);
describe('data plane: the project context handlers receive', () => {
  let config: AppConfig;
  let app: NestFastifyApplication;
  let base: string;
  let factory: ProjectFactory;
  let project: TestProject;

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(base + path, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const headers = (apikey?: string, bearer?: string): Record<string, string> => ({
    ...(apikey ? { apikey } : {}),
    ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
  });

  beforeAll(async () => {
    config = testConfig();
    ({ app, baseUrl: base } = await startDataPlane(config, { imports: [ProbeModule] }));
    factory = new ProjectFactory(config);
    project = await factory.newProject({ database: true });
  });

  afterAll(async () => {
    await app?.close();
    await factory?.cleanup();
  });

  it('gives the verified role, claims and how the ref was found', async () => {
    const byPath = await call(`/projects/${project.ref}/rest/v1/_probe/whoami`, {
      headers: headers(project.anonKey),
    });
    expect(byPath).toEqual({
      status: 200,
      body: {
        ref: project.ref,
        refSource: 'path',
        role: 'anon',
        claims: expect.objectContaining({ role: 'anon', ref: project.ref, iss: 'baseplate' }),
        status: 'ACTIVE_HEALTHY',
      },
    });
    const byKey = await call('/rest/v1/_probe/whoami', { headers: headers(project.serviceKey) });
    expect(byKey.body).toMatchObject({ refSource: 'apikey', role: 'service_role' });
    const user = await factory.userToken(project, { email: 'u@example.test' });
    const byBearer = await call('/rest/v1/_probe/whoami', { headers: headers(undefined, user) });
    expect(byBearer.body).toMatchObject({
      refSource: 'bearer',
      role: 'authenticated',
      claims: { role: 'authenticated', email: 'u@example.test' },
    });
  });

  it('serves both function path forms through one route', async () => {
    const init = (body: string): RequestInit => ({
      method: 'POST',
      headers: { ...headers(undefined, project.serviceKey), 'content-type': 'application/json' },
      body,
    });
    const formA = await call(`/functions/v1/${project.ref}/hello-world/_probe`, init('{"n":1}'));
    expect(formA).toEqual({
      status: 201,
      body: { ref: project.ref, refSource: 'functions-path', name: 'hello-world', body: { n: 1 } },
    });
    const formB = await call(`/projects/${project.ref}/functions/v1/hello-world/_probe`, init(''));
    expect(formB.body).toEqual({
      ref: project.ref,
      refSource: 'path',
      name: 'hello-world',
      body: null,
    });
  });

  it('lets a public route through without a key, as anon, but still refuses a bad key', async () => {
    const path = `/projects/${project.ref}/storage/v1/_probe/public`;
    expect(await call(path)).toEqual({
      status: 200,
      body: { role: 'anon', claims: { role: 'anon' } },
    });
    expect((await call(path, { headers: headers(project.serviceKey) })).body).toMatchObject({
      role: 'service_role',
    });
    expect((await call(path, { headers: headers('garbage') })).status).toBe(401);
    // Public only on the path, not the project: an unknown project is still a 404.
    expect((await call('/projects/00000000000000000000/storage/v1/_probe/public')).status).toBe(
      404,
    );
  });

  it('runs SQL through the app-wired pool as the caller, with the request settings', async () => {
    const sub = '0b6f7c1e-2a4e-4a8e-9b1a-0a0b0c0d0e0f';
    const reply = await call(`/projects/${project.ref}/rest/v1/_probe/db?x=1`, {
      headers: {
        ...headers(project.anonKey, await factory.userToken(project, { sub })),
        'x-client-info': 'probe/1',
      },
    });
    expect(reply).toEqual({
      status: 200,
      body: {
        currentUser: 'authenticated',
        uid: sub,
        path: '/rest/v1/_probe/db',
        clientInfo: 'probe/1',
        schemaVersion: expect.any(Number),
      },
    });
  });
});
