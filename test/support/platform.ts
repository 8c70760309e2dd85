import { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '@baseplate/config';
import { testConfig } from '@baseplate/testing';
import { createControlPlaneApp } from '../../apps/control-plane/src/bootstrap';
import { createDataPlaneApp } from '../../apps/data-plane/src/bootstrap';
import { startWorker } from '../../apps/worker/src/bootstrap';
import { request, waitFor } from './http';

/** The three apps booted in this process on free ports, sharing one suite-private config. */
export interface Platform {
  config: AppConfig;
  control: string;
  data: string;
  close(): Promise<void>;
  /** Factories: a fresh account with a login token, a fresh ACTIVE_HEALTHY project. */
  newAccount(): Promise<{ email: string; token: string }>;
  newProject(token: string, name?: string): Promise<TestProject>;
}

export interface TestProject {
  ref: string;
  anonKey: string;
  serviceKey: string;
}

const urlOf = async (app: INestApplication): Promise<string> =>
  (await app.getUrl()).replace('[::1]', '127.0.0.1');

/** A port that was free a moment ago: lets PUBLIC_URL name the data plane before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let counter = 0;

export async function bootPlatform(overrides: Record<string, string> = {}): Promise<Platform> {
  const port = await freePort();
  const config = testConfig({
    DATA_PLANE_PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...overrides,
  });
  const dataApp = await createDataPlaneApp(config);
  const controlApp = await createControlPlaneApp(config);
  const worker = await startWorker(config);
  const data = await urlOf(dataApp);
  const control = await urlOf(controlApp);

  const platform: Platform = {
    config,
    control,
    data,
    async close() {
      await Promise.allSettled([controlApp.close(), dataApp.close(), worker.close()]);
    },
    async newAccount() {
      const email = `user${process.pid}-${Date.now()}-${++counter}@example.com`;
      const password = 'correct horse battery';
      const signup = await request(control, 'POST', '/v1/signup', { body: { email, password } });
      if (signup.status !== 201) throw new Error(`signup failed: ${signup.text}`);
      const login = await request(control, 'POST', '/v1/login', { body: { email, password } });
      if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
      return { email, token: login.body.access_token as string };
    },
    async newProject(token, name = 'test project') {
      const created = await request(control, 'POST', '/v1/projects', { token, body: { name } });
      if (created.status !== 201) throw new Error(`create project failed: ${created.text}`);
      const ref = created.body.id as string;
      await waitForStatus(control, token, ref, 'ACTIVE_HEALTHY');
      const keys = await request(control, 'GET', `/v1/projects/${ref}/api-keys`, { token });
      const key = (n: string) =>
        (keys.body as { name: string; api_key: string }[]).find((k) => k.name === n)!.api_key;
      return { ref, anonKey: key('anon'), serviceKey: key('service_role') };
    },
  };
  return platform;
}

export async function waitForStatus(
  control: string,
  token: string,
  ref: string,
  status: string,
  timeoutMs = 20_000,
) {
  return waitFor(
    `project ${ref} to be ${status}`,
    async () => {
      const res = await request(control, 'GET', `/v1/projects/${ref}`, { token });
      if (res.body?.status === 'INIT_FAILED' && status !== 'INIT_FAILED') {
        throw new Error(`project ${ref} failed: ${res.body.status_reason}`);
      }
      return res.body?.status === status ? res.body : undefined;
    },
    timeoutMs,
  );
}
