import { Pool } from 'pg';
import {
  connectionUrl,
  createProjectDatabase,
  dropProjectDatabase,
  projectDbName,
  TransactionAbortedError,
  withRequestTransaction,
} from '@baseplate/database';
import { generateProjectRef } from '@baseplate/security';

const adminUrl = () => process.env.BASEPLATE_TEST_ADMIN_URL!;
const settings = (sub: string) => ({
  role: 'authenticated',
  claims: { sub },
  method: 'GET',
  path: '/rest/v1/x',
  searchPath: ['public'],
});
const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('withRequestTransaction', () => {
  const ref = generateProjectRef();
  let pool: Pool;

  beforeAll(async () => {
    await createProjectDatabase(adminUrl(), ref, process.env.BASEPLATE_TEST_TEMPLATE_DB!);
    // One connection, so every request below lands on the same session.
    pool = new Pool({ connectionString: connectionUrl(adminUrl(), projectDbName(ref)), max: 1 });
    // Created by the platform role: API roles get row privileges by default, not DDL.
    await pool.query('CREATE TABLE public.items (id int)');
  });
  beforeEach(() => pool.query('TRUNCATE public.items'));
  const ids = async () =>
    (await pool.query('SELECT id FROM public.items ORDER BY id')).rows.map((r) => r.id);
  afterAll(async () => {
    await pool.end();
    await dropProjectDatabase(adminUrl(), ref);
  });

  it('fails a request whose function swallowed an SQL error, instead of reporting lost work as done', async () => {
    const work = withRequestTransaction(pool, settings(A), async ({ client }) => {
      await client.query('INSERT INTO public.items VALUES (1)');
      await client.query('SELECT 1/0').catch(() => undefined);
      return 'looks fine';
    });
    await expect(work).rejects.toBeInstanceOf(TransactionAbortedError);
    expect(await ids()).toEqual([]);
  });

  it('does not let a session-wide legacy claim from one request reach the next', async () => {
    await withRequestTransaction(pool, settings(A), ({ client }) =>
      // What SQL run on behalf of request A might do, on purpose or not.
      client.query("SELECT set_config('request.jwt.claim.sub', $1, false)", [A]),
    );
    const uid = await withRequestTransaction(pool, settings(B), async ({ client }) => {
      const { rows } = await client.query('SELECT auth.uid() AS uid, current_user AS who');
      return rows[0];
    });
    expect(uid).toEqual({ uid: B, who: 'authenticated' });
  });

  it('commits on success and rolls back when asked', async () => {
    await withRequestTransaction(pool, settings(A), ({ client }) =>
      client.query('INSERT INTO public.items VALUES (1)'),
    );
    await withRequestTransaction(pool, settings(A), async ({ client, markRollback }) => {
      await client.query('INSERT INTO public.items VALUES (2)');
      markRollback();
    });
    expect(await ids()).toEqual([1]);
  });

  it('a fresh copy of the template is closed to PUBLIC', async () => {
    const { rows } = await pool.query(
      "SELECT has_database_privilege('public', current_database(), 'CONNECT') AS public_connect",
    );
    expect(rows[0].public_connect).toBe(false);
  });
});
