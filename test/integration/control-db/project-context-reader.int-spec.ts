import { Pool } from 'pg';
import { AppConfig } from '@baseplate/config';
import { FUNCTION_DEFAULTS, ProjectContextReader } from '@baseplate/control-db';
import { SecretBox } from '@baseplate/security';
import { testConfig } from '@baseplate/testing';
import { ProjectFactory, TestProject } from '../data-plane/project-factory';

describe('ProjectContextReader', () => {
  let config: AppConfig;
  let factory: ProjectFactory;
  let control: Pool;
  let reader: ProjectContextReader;
  let project: TestProject;

  const setRest = (values: { db_schema: string; db_extra_search_path: string; max_rows: number }) =>
    control.query(
      `INSERT INTO project_rest_configs (project_ref, db_schema, db_extra_search_path, max_rows)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_ref) DO UPDATE SET db_schema = $2, db_extra_search_path = $3, max_rows = $4`,
      [project.ref, values.db_schema, values.db_extra_search_path, values.max_rows],
    );

  beforeAll(async () => {
    config = testConfig();
    factory = new ProjectFactory(config);
    control = new Pool({ connectionString: config.databaseUrl, max: 1 });
    reader = new ProjectContextReader(control, new SecretBox(config.masterKey));
    project = await factory.newProject();
  });
  afterAll(async () => {
    await control?.end();
    await factory?.cleanup();
  });

  it('reads the project with its opened secret and, without settings rows, the defaults', async () => {
    expect(await reader.read(project.ref)).toEqual({
      ref: project.ref,
      status: 'ACTIVE_HEALTHY',
      dbName: `proj_${project.ref}`,
      cluster: 'default',
      jwtSecret: project.secret,
      keysVersion: 0,
      rest: { schemas: ['public'], extraSearchPath: ['public'], maxRows: 1000 },
      auth: {
        siteUrl: 'http://localhost:3000',
        uriAllowList: [],
        mailerAutoconfirm: false,
        jwtExp: 3600,
        passwordMinLength: 6,
      },
      functions: { limits: FUNCTION_DEFAULTS, deployed: {} },
    });
  });

  it('reads the auth settings row', async () => {
    await control.query(
      `INSERT INTO project_auth_configs (project_ref, site_url, uri_allow_list, mailer_autoconfirm, jwt_exp, password_min_length)
       VALUES ($1, 'https://app.example.com', 'https://a.example.com/*, http://localhost:5173', true, 900, 10)
       ON CONFLICT (project_ref) DO UPDATE SET site_url = EXCLUDED.site_url, uri_allow_list = EXCLUDED.uri_allow_list,
         mailer_autoconfirm = EXCLUDED.mailer_autoconfirm, jwt_exp = EXCLUDED.jwt_exp, password_min_length = EXCLUDED.password_min_length`,
      [project.ref],
    );
    expect((await reader.read(project.ref))!.auth).toEqual({
      siteUrl: 'https://app.example.com',
      uriAllowList: ['https://a.example.com/*', 'http://localhost:5173'],
      mailerAutoconfirm: true,
      jwtExp: 900,
      passwordMinLength: 10,
    });
    await control.query('DELETE FROM project_auth_configs WHERE project_ref = $1', [project.ref]);
  });

  it('reads the REST settings row, splitting the lists, trimming and dropping empty entries', async () => {
    await setRest({
      db_schema: ' api , public,',
      db_extra_search_path: 'public,,extensions ',
      max_rows: 50,
    });
    expect((await reader.read(project.ref))!.rest).toEqual({
      schemas: ['api', 'public'],
      extraSearchPath: ['public', 'extensions'],
      maxRows: 50,
    });
    await setRest({ db_schema: 'public', db_extra_search_path: '', max_rows: 1 });
    expect((await reader.read(project.ref))!.rest).toEqual({
      schemas: ['public'],
      extraSearchPath: [],
      maxRows: 1,
    });
  });

  it('answers null for an unknown project', async () => {
    expect(await reader.read('00000000000000000000')).toBeNull();
  });

  it('keeps max_rows within 1..1000000 and drops the row with its project', async () => {
    for (const max_rows of [0, 1_000_001]) {
      await expect(
        setRest({ db_schema: 'public', db_extra_search_path: 'public', max_rows }),
      ).rejects.toMatchObject({ constraint: 'project_rest_configs_max_rows_check' });
    }
    await factory.deleteRow(project.ref);
    const left = await control.query('SELECT 1 FROM project_rest_configs WHERE project_ref = $1', [
      project.ref,
    ]);
    expect(left.rowCount).toBe(0);
  });
});
