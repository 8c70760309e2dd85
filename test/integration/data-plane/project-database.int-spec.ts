import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { AppConfig } from '@baseplate/config';
import { ProjectContextReader } from '@baseplate/control-db';
import { AuthStatements } from '@baseplate/auth';
import {
  ApiRole,
  connectionUrl,
  projectDbName,
  RequestContext,
  withClient,
} from '@baseplate/database';
import { SecretBox } from '@baseplate/security';
import { testConfig } from '@baseplate/testing';
import { ProjectDatabaseService, ProjectRequestContext } from './data-plane';
import { ProjectFactory, TestProject } from './project-factory';

const USER_A = randomUUID();
const USER_B = randomUUID();

// Creating a database from the template can take seconds on a busy shared cluster.
jest.setTimeout(30_000);
describe('ProjectDatabaseService.withRequest on a real project database', () => {
  let config: AppConfig;
  let factory: ProjectFactory;
  let project: TestProject;
  let control: Pool;
  let databases: ProjectDatabaseService;
  let base: Omit<ProjectRequestContext, 'role' | 'claims'>;

  const as = (role: ApiRole, claims: Record<string, unknown> = {}): ProjectRequestContext => ({
    ...base,
    role,
    claims: { role, ref: project.ref, ...claims },
  });
  const run = <T>(
    ctx: ProjectRequestContext,
    fn: (tx: RequestContext) => Promise<T>,
    readOnly = false,
  ) =>
    databases.withRequest(
      ctx,
      { method: 'GET', path: '/rest/v1/notes', searchPath: ['public'], readOnly },
      fn,
    );
  const owners = (ctx: ProjectRequestContext) =>
    run(ctx, async (tx) =>
      (await tx.client.query<{ owner: string }>('SELECT owner FROM notes ORDER BY id')).rows.map(
        (r) => r.owner,
      ),
    );
  const asAdmin = (sql: string) => withClient(project.adminUrl, (c) => c.query(sql));

  beforeAll(async () => {
    config = testConfig();
    factory = new ProjectFactory(config);
    project = await factory.newProject({ database: true });
    control = new Pool({ connectionString: config.databaseUrl, max: 1 });
    const context = await new ProjectContextReader(control, new SecretBox(config.masterKey)).read(
      project.ref,
    );
    base = { ref: project.ref, refSource: 'path', context: context! };
    databases = new ProjectDatabaseService(config);
    // As the project's admin role, like the SQL endpoint: its default privileges grant the API roles.
    await asAdmin(`
      CREATE TABLE public.notes (id serial PRIMARY KEY, owner uuid NOT NULL, body text NOT NULL);
      ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
      CREATE POLICY notes_owner ON public.notes FOR ALL USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
      INSERT INTO public.notes (owner, body) VALUES ('${USER_A}', 'a1'), ('${USER_B}', 'b1'), ('${USER_A}', 'a2');`);
  });

  afterAll(async () => {
    await databases?.onModuleDestroy();
    await control?.end();
    await factory?.cleanup();
  });

  it('lets an authenticated user see only their rows, as auth.uid() and current_user say', async () => {
    const userA = as('authenticated', { sub: USER_A });
    expect(await owners(userA)).toEqual([USER_A, USER_A]);
    expect(await owners(as('authenticated', { sub: USER_B }))).toEqual([USER_B]);
    const who = await run(
      userA,
      async (tx) =>
        (
          await tx.client.query(
            'SELECT auth.uid() AS uid, current_user AS role, auth.role() AS claim_role',
          )
        ).rows[0],
    );
    expect(who).toEqual({ uid: USER_A, role: 'authenticated', claim_role: 'authenticated' });
  });

  it('shows anon nothing and service_role everything', async () => {
    expect(await owners(as('anon'))).toEqual([]);
    expect(await owners(as('service_role'))).toEqual([USER_A, USER_B, USER_A]);
  });

  it('enforces WITH CHECK on writes: a user cannot write rows of another', async () => {
    const userA = as('authenticated', { sub: USER_A });
    await expect(
      run(userA, (tx) =>
        tx.client.query('INSERT INTO notes (owner, body) VALUES ($1, $2)', [USER_B, 'forged']),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    expect(await owners(as('service_role'))).not.toContain(undefined);
    expect((await owners(as('service_role'))).length).toBe(3);
  });

  it('keeps project_secrets from anon and authenticated; only service_role reads it', async () => {
    for (const ctx of [as('anon'), as('authenticated', { sub: USER_A })]) {
      await expect(
        run(ctx, (tx) => tx.client.query('SELECT * FROM public.project_secrets')),
      ).rejects.toMatchObject({
        code: '42501',
      });
    }
    await expect(
      run(as('service_role'), (tx) => tx.client.query('SELECT * FROM public.project_secrets')),
    ).resolves.toMatchObject({
      rows: [],
    });
  });

  it('exposes request.method, request.path, search_path and the claims to SQL', async () => {
    const settings = await databases.withRequest(
      as('authenticated', { sub: USER_A, email: 'a@example.test' }),
      {
        method: 'PATCH',
        path: '/rest/v1/notes',
        searchPath: ['public', 'extensions'],
        headers: { 'x-client-info': 'test/1' },
      },
      async (tx) =>
        (
          await tx.client
            .query(`SELECT current_setting('request.method') AS method, current_setting('request.path') AS path,
            current_setting('search_path') AS search_path, auth.jwt() ->> 'email' AS email,
            current_setting('request.headers')::jsonb ->> 'x-client-info' AS client`)
        ).rows[0],
    );
    expect(settings).toEqual({
      method: 'PATCH',
      path: '/rest/v1/notes',
      search_path: '"public", "extensions"',
      email: 'a@example.test',
      client: 'test/1',
    });
  });

  it('runs read-only requests in a read-only transaction', async () => {
    await expect(
      run(
        as('service_role'),
        (tx) => tx.client.query("INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'x')"),
        true,
      ),
    ).rejects.toMatchObject({ code: '25006' });
  });

  it('reports a new schema version after DDL made between two requests', async () => {
    const before = await run(as('anon'), async (tx) => tx.schemaVersion);
    expect(before).toBeGreaterThan(0);
    expect(await run(as('anon'), async (tx) => tx.schemaVersion)).toBe(before);
    await asAdmin('CREATE TABLE public.later (id int)');
    expect(await run(as('anon'), async (tx) => tx.schemaVersion)).toBeGreaterThan(before);
  });

  it('leaves no trace of a request that called markRollback(), or that failed', async () => {
    const service = as('service_role');
    const inserted = await run(service, async (tx) => {
      await tx.client.query(
        "INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'rolled back')",
      );
      tx.markRollback();
      return (await tx.client.query('SELECT count(*)::int AS n FROM notes')).rows[0].n as number;
    });
    expect(inserted).toBe(4);
    await expect(
      run(service, async (tx) => {
        await tx.client.query(
          "INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'failed')",
        );
        await tx.client.query('SELECT 1/0');
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect((await owners(service)).length).toBe(3);
    // Nothing leaks into the next request on a pooled connection: role and claims are per transaction.
    expect(
      await run(
        as('anon'),
        async (tx) =>
          (await tx.client.query('SELECT current_user AS u, auth.uid() AS uid')).rows[0],
      ),
    ).toEqual({
      u: 'anon',
      uid: null,
    });
  });

  it('runs auth statements as auth_admin, prepared, and afresh after a schema change', async () => {
    const asCluster = (sql: string) =>
      withClient(connectionUrl(config.databaseUrl, projectDbName(project.ref)), (c) =>
        c.query(sql),
      );
    await asCluster("INSERT INTO auth.users (email, phone) VALUES ('prep@example.com', '+100')");
    const lookUp = () =>
      databases.authStatement(
        as('anon'),
        { method: 'POST', path: '/auth/v1/token' },
        AuthStatements.userByEmail('prep@example.com'),
      );
    // The first learns the schema version; the next ones run the prepared statement.
    for (let i = 0; i < 3; i++) expect(await lookUp()).toMatchObject({ phone: '+100' });
    // The prepared statement's result type no longer holds ("cached plan must not change
    // result type"): the statement runs again, prepared under the new version.
    await asCluster('ALTER TABLE auth.users ALTER COLUMN phone TYPE varchar(20)');
    try {
      expect(await lookUp()).toMatchObject({ phone: '+100' });
      expect(await lookUp()).toMatchObject({ phone: '+100' });
    } finally {
      await asCluster('ALTER TABLE auth.users ALTER COLUMN phone TYPE text');
    }
  });

  it('opens one pool per project and closes it on closeProject', async () => {
    await owners(as('anon'));
    expect(databases.openPools).toBe(1);
    databases.closeProject(project.ref);
    expect(databases.openPools).toBe(0);
    expect(await owners(as('service_role'))).toHaveLength(3);
    expect(databases.openPools).toBe(1);
  });
});
