import Redis from 'ioredis';
import { Pool } from 'pg';
import { ProjectContextReader } from '@baseplate/control-db';
import { createRedis, subscribeProjectInvalidation } from '@baseplate/jobs';
import { SecretBox } from '@baseplate/security';
import { request, waitFor } from '../support/http';
import { bootPlatform, Platform, TestProject } from '../support/platform';

const DEFAULTS = { db_schema: 'public', db_extra_search_path: 'public', max_rows: 1000 };

describe('REST API settings (/v1/projects/{ref}/postgrest)', () => {
  let platform: Platform;
  let token: string;
  let project: TestProject;
  let control: Pool;
  let subscriber: Redis;
  /** Refs published on the invalidation channel, in order. */
  const invalidated: string[] = [];
  const path = (ref = project.ref) => `/v1/projects/${ref}/postgrest`;
  const patch = (body: unknown, as = token) =>
    request(platform.control, 'PATCH', path(), { token: as, body });
  const get = (as = token) => request(platform.control, 'GET', path(), { token: as });
  const storedRows = async () =>
    (
      await control.query('SELECT * FROM project_rest_configs WHERE project_ref = $1', [
        project.ref,
      ])
    ).rowCount;

  beforeAll(async () => {
    platform = await bootPlatform();
    ({ token } = await platform.newAccount());
    project = await platform.newProject(token);
    control = new Pool({ connectionString: platform.config.databaseUrl, max: 1 });
    subscriber = createRedis(platform.config.redisUrl);
    await subscribeProjectInvalidation(
      subscriber,
      platform.config.queuePrefix,
      (ref) => invalidated.push(ref),
      () => undefined,
    );
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await control?.end();
    await platform?.close();
  });

  it('answers the defaults for a project that never changed them, without storing a row', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
    expect(await storedRows()).toBe(0);
  });

  it('applies a PATCH, stores the lists normalized and tells the data planes', async () => {
    const res = await patch({
      db_schema: ' api ,public',
      db_extra_search_path: 'public,extensions',
      max_rows: 500,
    });
    expect(res.status).toBe(200);
    const expected = {
      db_schema: 'api, public',
      db_extra_search_path: 'public, extensions',
      max_rows: 500,
    };
    expect(res.body).toEqual(expected);
    expect((await get()).body).toEqual(expected);
    // What the data plane reads after dropping its cached context.
    const context = await new ProjectContextReader(
      control,
      new SecretBox(platform.config.masterKey),
    ).read(project.ref);
    expect(context!.rest).toEqual({
      schemas: ['api', 'public'],
      extraSearchPath: ['public', 'extensions'],
      maxRows: 500,
    });
    await waitFor('the invalidation of the project', async () => invalidated.includes(project.ref));
  });

  it('changes only the fields sent, and lets the extra search path be empty', async () => {
    const res = await patch({ max_rows: 1_000_000, db_extra_search_path: '' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ db_schema: 'api, public', db_extra_search_path: '', max_rows: 1e6 });
    expect(await storedRows()).toBe(1);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ db_schema: 'auth' }, 'must not expose the schema "auth"'],
    [{ db_schema: 'public, storage' }, 'must not expose the schema "storage"'],
    [{ db_schema: 'public,_platform' }, 'must not expose the schema "_platform"'],
    [{ db_schema: 'pg_catalog' }, 'must not expose the schema "pg_catalog"'],
    [{ db_schema: 'information_schema' }, 'must not expose the schema "information_schema"'],
    [{ db_schema: 'pg_toast' }, 'must not expose the schema "pg_toast"'],
    [{ db_schema: 'public, 1bad' }, 'invalid schema name "1bad"'],
    [{ db_schema: 'public; drop schema public' }, 'invalid schema name'],
    [{ db_schema: '' }, 'must list 1 to 20 schemas'],
    [{ db_schema: null }, 'must be a string'],
    [{ db_extra_search_path: 'public, "x"' }, 'invalid schema name'],
    [{ max_rows: 0 }, 'max_rows must not be less than 1'],
    [{ max_rows: 1_000_001 }, 'max_rows must not be greater than 1000000'],
    [{ max_rows: 2.5 }, 'max_rows must be an integer'],
    [{ max_rows: '100' }, 'max_rows must be an integer'],
    [{ unknown_setting: 1 }, 'unknown_setting should not exist'],
  ])('refuses %j with a 400 naming the field and changes nothing', async (body, reason) => {
    const before = (await get()).body;
    const res = await patch(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Bad Request', code: 'validation_failed' });
    expect(res.body.message).toContain(Object.keys(body)[0]);
    expect(res.body.message).toContain(reason);
    expect((await get()).body).toEqual(before);
  });

  it("answers 404 for another account's project, as for one that does not exist", async () => {
    const other = await platform.newAccount();
    for (const res of [
      await get(other.token),
      await patch({ max_rows: 5 }, other.token),
      await request(platform.control, 'GET', path('00000000000000000000'), { token }),
      await request(platform.control, 'PATCH', path('not-a-ref'), {
        token,
        body: { max_rows: 5 },
      }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'Not Found', code: 'project_not_found' });
    }
    expect((await get()).body.max_rows).toBe(1_000_000);
  });

  it('answers 401 without a valid token', async () => {
    // No Authorization header, a malformed token, and a project key (not a platform token).
    for (const as of [undefined, 'garbage', project.serviceKey]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { max_rows: 5 }],
      ] as const) {
        const res = await request(platform.control, method, path(), { token: as, body });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('Unauthorized');
      }
    }
    expect((await get()).body.max_rows).toBe(1_000_000);
  });

  it('removes the settings with the project (ON DELETE CASCADE)', async () => {
    const res = await request(platform.control, 'DELETE', `/v1/projects/${project.ref}`, {
      token,
    });
    expect(res.status).toBe(200);
    await waitFor('the settings row to go', async () => (await storedRows()) === 0);
  });
});
