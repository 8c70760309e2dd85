import { connectionUrl, withClient } from '@baseplate/database';
import { sha256Hex } from '@baseplate/security';
import { request } from '../support/http';
import { bootPlatform, Platform, TestProject } from '../support/platform';

describe('project management endpoints', () => {
  let platform: Platform;
  let token: string;
  let project: TestProject;
  const path = (suffix: string) => `/v1/projects/${project.ref}${suffix}`;

  beforeAll(async () => {
    platform = await bootPlatform({
      SQL_STATEMENT_TIMEOUT_MS: '300',
      SQL_RESULT_MAX_BYTES: '65536',
    });
    ({ token } = await platform.newAccount());
    project = await platform.newProject(token);
  });
  afterAll(() => platform.close());

  describe('secrets', () => {
    it('stores values in project_secrets and only ever answers their SHA-256', async () => {
      const created = await request(platform.control, 'POST', path('/secrets'), {
        token,
        body: [
          { name: 'STRIPE_KEY', value: 'sk_live_1' },
          { name: 'OTHER', value: 'two' },
        ],
      });
      expect(created.status).toBe(201);
      expect(created.text).not.toContain('sk_live_1');

      const replaced = await request(platform.control, 'POST', path('/secrets'), {
        token,
        body: [{ name: 'STRIPE_KEY', value: 'sk_live_2' }],
      });
      expect(replaced.status).toBe(201);

      const listed = await request(platform.control, 'GET', path('/secrets'), { token });
      expect(listed.body).toEqual([
        { name: 'OTHER', value: sha256Hex('two') },
        { name: 'STRIPE_KEY', value: sha256Hex('sk_live_2') },
      ]);

      const stored = await withClient(
        connectionUrl(process.env.BASEPLATE_TEST_ADMIN_URL!, `proj_${project.ref}`),
        (c) => c.query('SELECT name, value FROM public.project_secrets ORDER BY name'),
      );
      expect(stored.rows).toEqual([
        { name: 'OTHER', value: 'two' },
        { name: 'STRIPE_KEY', value: 'sk_live_2' },
      ]);

      const deleted = await request(platform.control, 'DELETE', path('/secrets'), {
        token,
        body: ['OTHER', 'MISSING'],
      });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ deleted: ['OTHER'] });
      const after = await request(platform.control, 'GET', path('/secrets'), { token });
      expect(after.body.map((s: { name: string }) => s.name)).toEqual(['STRIPE_KEY']);
    });

    it('hides them from every API role: RLS with no policy, and no grant to anon or authenticated', async () => {
      const asAdmin = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'select count(*)::int as n from project_secrets' },
      });
      expect(asAdmin.status).toBe(201);
      expect(asAdmin.body).toEqual([{ n: 0 }]);
      for (const role of ['anon', 'authenticated']) {
        const res = await request(platform.control, 'POST', path('/database/query'), {
          token,
          body: { query: `set role ${role}; select * from project_secrets` },
        });
        expect(res.status).toBe(400);
        expect(res.body.sqlstate).toBe('42501');
      }
      const asService = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'set role service_role; select name from project_secrets' },
      });
      expect(asService.body).toEqual([{ name: 'STRIPE_KEY' }]);
    });

    it.each([
      [[], 'empty list'],
      [[{ name: '1BAD', value: 'x' }], 'name starting with a digit'],
      [
        [
          { name: 'A', value: 'x' },
          { name: 'A', value: 'y' },
        ],
        'duplicate names',
      ],
      [[{ name: 'A' }], 'missing value'],
      [{ name: 'A', value: 'x' }, 'an object instead of an array'],
      [[{ name: 'A', value: 'x', extra: 1 }], 'an unknown field'],
    ] as [unknown, string][])('refuses %j (%s) with a 400', async (body) => {
      const res = await request(platform.control, 'POST', path('/secrets'), { token, body });
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
    });
  });

  describe('secrets against a hostile tenant', () => {
    it('writes them without superuser rights, so a trigger the tenant planted gains nothing', async () => {
      // The tenant owns `public`: it can replace project_secrets with a table whose trigger
      // records who runs it and tries to take over the cluster.
      const plant = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: {
          query: `
            create table public.trigger_log (session_user_name text, current_user_name text, is_super boolean, escalated text);
            drop table public.project_secrets;
            create table public.project_secrets (name text primary key, value text not null,
              created_at timestamptz not null default now(), updated_at timestamptz not null default now());
            create function public.snoop() returns trigger language plpgsql as $$
            declare outcome text;
            begin
              begin
                reset role;
                execute format('alter role %I superuser', session_user);
                outcome := 'escalated';
              exception when others then
                outcome := sqlstate;
              end;
              insert into public.trigger_log values (session_user, current_user,
                (select rolsuper from pg_roles where rolname = current_user), outcome);
              return new;
            end $$;
            create trigger snoop before insert on public.project_secrets for each row execute function public.snoop();
            select 1 as planted`,
        },
      });
      expect(plant.status).toBe(201);

      const write = await request(platform.control, 'POST', path('/secrets'), {
        token,
        body: [{ name: 'BAIT', value: 'x' }],
      });
      expect(write.status).toBe(201);

      const log = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'select * from public.trigger_log' },
      });
      expect(log.body).toEqual([
        {
          session_user_name: `${project.ref}_admin`,
          // The failed block's rollback also undid its RESET ROLE.
          current_user_name: 'service_role',
          is_super: false,
          escalated: '42501',
        },
      ]);
      const supers = await withClient(process.env.BASEPLATE_TEST_ADMIN_URL!, (c) =>
        c.query('SELECT 1 FROM pg_roles WHERE rolname = $1 AND rolsuper', [`${project.ref}_admin`]),
      );
      expect(supers.rowCount).toBe(0);
    });
  });

  describe('auth config', () => {
    it('has the documented defaults and never returns smtp_pass', async () => {
      const res = await request(platform.control, 'GET', path('/config/auth'), { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        mailer_autoconfirm: false,
        jwt_exp: 3600,
        password_min_length: 6,
        smtp_host: null,
      });
      expect(res.body).not.toHaveProperty('smtp_pass');
    });

    it('applies a valid PATCH and seals the SMTP password', async () => {
      const res = await request(platform.control, 'PATCH', path('/config/auth'), {
        token,
        body: {
          site_url: 'https://app.example.com',
          uri_allow_list: 'http://localhost:5173/**',
          mailer_autoconfirm: true,
          jwt_exp: 7200,
          password_min_length: 10,
          smtp_host: 'smtp.example.com',
          smtp_port: 587,
          smtp_user: 'mailer',
          smtp_pass: 'smtp-secret-value',
          smtp_admin_email: 'admin@example.com',
          smtp_sender_name: 'Example',
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        site_url: 'https://app.example.com',
        mailer_autoconfirm: true,
        jwt_exp: 7200,
        smtp_port: 587,
      });
      expect(res.text).not.toContain('smtp-secret-value');
      const row = await withClient(process.env.BASEPLATE_TEST_DATABASE_URL!, (c) =>
        c.query('SELECT smtp_pass_enc FROM project_auth_configs WHERE project_ref = $1', [
          project.ref,
        ]),
      );
      expect(row.rows[0].smtp_pass_enc).toMatch(/^v1\./);
      expect(row.rows[0].smtp_pass_enc).not.toContain('smtp-secret-value');
      const again = await request(platform.control, 'GET', path('/config/auth'), { token });
      expect(again.body).toEqual(res.body);
    });

    it.each([
      [{ jwt_exp: 5 }],
      [{ jwt_exp: 'soon' }],
      [{ mailer_autoconfirm: 'yes' }],
      [{ password_min_length: 2 }],
      [{ site_url: 'not a url' }],
      [{ smtp_port: 70000 }],
      [{ smtp_admin_email: 'nope' }],
      [{ unknown_setting: true }],
    ])('refuses %j with a 400 naming the field', async (body) => {
      const res = await request(platform.control, 'PATCH', path('/config/auth'), { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(res.body.message).toContain(Object.keys(body)[0]);
    });
  });

  describe('database query', () => {
    it('answers a SQL error with 400, its message and SQLSTATE', async () => {
      const res = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'select * from no_such_table' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'Bad Request',
        code: 'sql_error',
        sqlstate: '42P01',
      });
      expect(res.body.message).toContain('no_such_table');
    });

    it('answers the rows of the last statement only', async () => {
      const cases: [string, unknown][] = [
        ['select 1 as a; select 2 as b', [{ b: 2 }]],
        ['select 1 as a; create temp table scratch (x int)', []],
        ['select x from generate_series(1, 3) x where x > 5', []],
        ["select 'a' as s union all select 'b'", [{ s: 'a' }, { s: 'b' }]],
      ];
      for (const [query, rows] of cases) {
        const res = await request(platform.control, 'POST', path('/database/query'), {
          token,
          body: { query },
        });
        expect(res.status).toBe(201);
        expect(res.body).toEqual(rows);
      }
    });

    it('refuses a result larger than SQL_RESULT_MAX_BYTES and stops the query', async () => {
      const res = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: {
          query: "select repeat('x', 1000) as marker_big_result from generate_series(1, 100000)",
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/larger than 65536 bytes/);
      const running = await withClient(process.env.BASEPLATE_TEST_ADMIN_URL!, (c) =>
        c.query(
          "SELECT 1 FROM pg_stat_activity WHERE query LIKE '%marker_big_result%' AND pid <> pg_backend_pid()",
        ),
      );
      expect(running.rowCount).toBe(0);
      // An earlier statement's large result does not count against the last one.
      const small = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: "select repeat('x', 1000) from generate_series(1, 50); select 1 as ok" },
      });
      expect(small.body).toEqual([{ ok: 1 }]);
    });

    it('cancels a statement that outlives the timeout', async () => {
      const started = Date.now();
      const res = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'select pg_sleep(5)' },
      });
      expect(res.status).toBe(400);
      expect(res.body.sqlstate).toBe('57014');
      expect(Date.now() - started).toBeLessThan(4000);
    });

    it('stops a statement that lifted its own timeout, and terminates its backend', async () => {
      const started = Date.now();
      const res = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'set statement_timeout = 0; select pg_sleep(30) as marker_sleep_lifted' },
      });
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(5000);
      const running = await withClient(process.env.BASEPLATE_TEST_ADMIN_URL!, (c) =>
        c.query(
          "SELECT 1 FROM pg_stat_activity WHERE query LIKE '%marker_sleep_lifted%' AND pid <> pg_backend_pid()",
        ),
      );
      expect(running.rowCount).toBe(0);
    });

    it('cannot escalate: no superuser, no role creation, no other database', async () => {
      for (const query of [
        'alter role current_user superuser',
        'create role sneaky',
        'create database sneaky',
        'reset role; create role sneaky2',
      ]) {
        const res = await request(platform.control, 'POST', path('/database/query'), {
          token,
          body: { query },
        });
        expect(res.status).toBe(400);
        expect(res.body.sqlstate).toBe('42501');
      }
    });

    it('leaves no session state behind for the next request', async () => {
      await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'set search_path to nowhere; begin; create temp table t (x int)' },
      });
      const res = await request(platform.control, 'POST', path('/database/query'), {
        token,
        body: { query: 'show search_path' },
      });
      expect(res.body).toEqual([{ search_path: '"$user", public' }]);
    });
  });
});
