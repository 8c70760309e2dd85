import { NestExpressApplication } from '@nestjs/platform-express';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { connect, createServer, Server, Socket } from 'node:net';
import { Client } from 'pg';
import { adminRoleName, quoteIdent } from '@baseplate/database';
import { createRedis, defaultJobOptions, jobIds, QUEUES } from '@baseplate/jobs';
import { testConfig } from '@baseplate/testing';
import { createControlPlaneApp } from '../../apps/control-plane/src/bootstrap';
import { request, waitFor } from '../support/http';
import { bootPlatform, freePort, Platform } from '../support/platform';

const adminUrl = () => process.env.BASEPLATE_TEST_ADMIN_URL!;

async function sql<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Failure paths of the management API: jobs that failed once, Redis that is gone, and
 * tokens sent where they could end up in logs.
 */
describe('robustness', () => {
  // One attempt per job, so a job the test breaks fails at once instead of after backoff.
  let platform: Platform;
  let token: string;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    platform = await bootPlatform({ JOB_ATTEMPTS: '1' });
    ({ token } = await platform.newAccount());
    redis = createRedis(platform.config.redisUrl);
    queue = new Queue(QUEUES.provisioning, {
      connection: redis,
      prefix: platform.config.queuePrefix,
    });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await platform.close();
  });

  const keysVersion = async (ref: string) =>
    (
      await sql<{ v: number }>(
        platform.config.databaseUrl,
        'SELECT keys_version AS v FROM projects WHERE ref = $1',
        [ref],
      )
    )[0]!.v;

  const setKeysVersion = (ref: string, v: number) =>
    sql(platform.config.databaseUrl, 'UPDATE projects SET keys_version = $2 WHERE ref = $1', [
      ref,
      v,
    ]);

  const failedJob = (id: string) =>
    waitFor(`job ${id} to fail`, async () => {
      const job = await queue.getJob(id);
      return job && (await job.isFailed()) ? job : undefined;
    });

  const apiKeys = async (ref: string) =>
    (await request(platform.control, 'GET', `/v1/projects/${ref}/api-keys`, { token })).body as {
      name: string;
      api_key: string;
    }[];

  describe('a job id that failed before', () => {
    it('is retried by the next key rotation instead of failing it forever', async () => {
      const project = await platform.newProject(token);
      const v = await keysVersion(project.ref);
      // The next rotation (v + 1) finds the row one version behind: it fails, as it would
      // if the database had been briefly unreachable.
      await setKeysVersion(project.ref, v - 1);
      const id = jobIds.rotateKeys(project.ref, v + 1);
      await queue.add(
        'rotate-keys',
        { ref: project.ref, keysVersion: v + 1 },
        { ...defaultJobOptions({ attempts: 1, backoffMs: 0 }), jobId: id },
      );
      await failedJob(id);
      await setKeysVersion(project.ref, v);

      const before = await apiKeys(project.ref);
      const rotated = await request(
        platform.control,
        'POST',
        `/v1/projects/${project.ref}/api-keys/rotate`,
        { token },
      );
      expect(rotated.status).toBe(200);
      expect(rotated.body).not.toEqual(before);
      expect(await keysVersion(project.ref)).toBe(v + 1);
      expect(await apiKeys(project.ref)).toEqual(rotated.body);
    });

    it('answers a rotation whose job fails with a 500 that names the operation, not its internals', async () => {
      const project = await platform.newProject(token);
      const v = await keysVersion(project.ref);
      // A job under the next rotation's id that skips a version: it fails on every run.
      const id = jobIds.rotateKeys(project.ref, v + 1);
      await queue.add(
        'rotate-keys',
        { ref: project.ref, keysVersion: v + 2 },
        { ...defaultJobOptions({ attempts: 1, backoffMs: 0 }), jobId: id },
      );
      await failedJob(id);

      const res = await request(
        platform.control,
        'POST',
        `/v1/projects/${project.ref}/api-keys/rotate`,
        { token },
      );
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: 'Internal Server Error',
        code: 'internal_error',
        message: 'Key rotation failed; try again',
      });
      expect(res.text).not.toContain('version');
    });

    it('is retried by a second DELETE, so a failed delete does not leave the project GOING_DOWN', async () => {
      const project = await platform.newProject(token);
      const role = adminRoleName(project.ref);
      const controlDb = new URL(platform.config.databaseUrl).pathname.slice(1);
      // A privilege on another database makes DROP ROLE fail, so the delete job fails.
      await sql(
        adminUrl(),
        `GRANT CONNECT ON DATABASE ${quoteIdent(controlDb)} TO ${quoteIdent(role)}`,
      );
      try {
        const first = await request(platform.control, 'DELETE', `/v1/projects/${project.ref}`, {
          token,
        });
        expect(first.status).toBe(200);
        await failedJob(jobIds.deleteProject(project.ref));
      } finally {
        await sql(
          adminUrl(),
          `REVOKE CONNECT ON DATABASE ${quoteIdent(controlDb)} FROM ${quoteIdent(role)}`,
        );
      }
      const again = await request(platform.control, 'DELETE', `/v1/projects/${project.ref}`, {
        token,
      });
      expect(again.status).toBe(200);
      await waitFor('the project to be gone', async () => {
        const res = await request(platform.control, 'GET', `/v1/projects/${project.ref}`, {
          token,
        });
        return res.status === 404;
      });
    });
  });

  describe('access tokens', () => {
    it('are accepted only in the Authorization header', async () => {
      const ok = await request(platform.control, 'GET', '/v1/projects', { token });
      expect(ok.status).toBe(200);
      const inQuery = await request(
        platform.control,
        'GET',
        `/v1/projects?access_token=${encodeURIComponent(token)}`,
      );
      expect(inQuery.status).toBe(401);
      expect(inQuery.body.error).toBe('Unauthorized');
      // Without the header check this would pass the guard and fail validation (400).
      const inBody = await request(platform.control, 'POST', '/v1/access-tokens', {
        body: { name: 'ci', access_token: token },
      });
      expect(inBody.status).toBe(401);
      const personal = await request(platform.control, 'POST', '/v1/access-tokens', {
        token,
        body: { name: 'query' },
      });
      expect(personal.status).toBe(201);
      const personalInQuery = await request(
        platform.control,
        'GET',
        `/v1/projects?access_token=${encodeURIComponent(personal.body.token as string)}`,
      );
      expect(personalInQuery.status).toBe(401);
    });

    it('in the header and the query at once are refused', async () => {
      const both = await request(
        platform.control,
        'GET',
        `/v1/projects?access_token=${encodeURIComponent(token)}`,
        { token },
      );
      expect(both.status).toBe(401);
    });
  });
});

describe('control plane without Redis', () => {
  let app: NestExpressApplication;
  let control: string;

  beforeAll(async () => {
    // Port 1: nothing listens, so every connection attempt is refused.
    app = await createControlPlaneApp(testConfig({ REDIS_URL: 'redis://127.0.0.1:1' }));
    control = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  it('boots, serves accounts, and answers 503 for project creation without leaving a row', async () => {
    const email = `noredis-${Date.now()}@example.com`;
    const password = 'a long password';
    expect(
      (await request(control, 'POST', '/v1/signup', { body: { email, password } })).status,
    ).toBe(201);
    const login = await request(control, 'POST', '/v1/login', { body: { email, password } });
    expect(login.status).toBe(200);
    const token = login.body.access_token as string;

    const started = Date.now();
    const created = await request(control, 'POST', '/v1/projects', {
      token,
      body: { name: 'no redis' },
    });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(created.status).toBe(503);
    expect(created.body).toMatchObject({
      error: 'Service Unavailable',
      code: 'service_unavailable',
    });
    expect(typeof created.body.message).toBe('string');

    const list = await request(control, 'GET', '/v1/projects', { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});

/**
 * A TCP proxy in front of the test Redis that can be cut and restored: Redis going away
 * and coming back, without touching the real server.
 */
class RedisLink {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly port: number,
    private readonly target: URL,
  ) {}

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(Number(this.target.port || 6379), this.target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** Closes the listener and every open connection: new connections are refused. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

describe('control plane when Redis goes away and comes back', () => {
  let app: NestExpressApplication;
  let control: string;
  let link: RedisLink;
  let token: string;
  let prefix: string;

  beforeAll(async () => {
    const port = await freePort();
    const config = testConfig({ REDIS_URL: `redis://127.0.0.1:${port}` });
    prefix = config.queuePrefix;
    link = new RedisLink(port, new URL(testConfig().redisUrl));
    app = await createControlPlaneApp(config);
    control = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const email = `flaky-redis-${Date.now()}@example.com`;
    const password = 'a long password';
    await request(control, 'POST', '/v1/signup', { body: { email, password } });
    const login = await request(control, 'POST', '/v1/login', { body: { email, password } });
    token = login.body.access_token as string;
  });
  afterAll(async () => {
    await app.close();
    await link.down();
    // No worker runs in this suite: drop the create-project jobs it left waiting.
    const redis = createRedis(testConfig().redisUrl);
    const queue = new Queue(QUEUES.provisioning, { connection: redis, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });

  const createProject = () =>
    request(control, 'POST', '/v1/projects', { token, body: { name: 'flaky' } });

  it('answers 503 while Redis is away and serves again once it is back', async () => {
    // Down from the start: the first connection never succeeded.
    expect((await createProject()).status).toBe(503);

    await link.up();
    // ioredis retries on a backoff of up to 2 s; the request waits for the connection.
    const created = await createProject();
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('COMING_UP');

    await link.down();
    const started = Date.now();
    const refused = await createProject();
    expect(refused.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(6_000);

    await link.up();
    expect((await createProject()).status).toBe(201);

    // Only the two that were enqueued remain; the refused ones took their rows back.
    const list = await request(control, 'GET', '/v1/projects', { token });
    expect(list.body).toHaveLength(2);
  });
});
