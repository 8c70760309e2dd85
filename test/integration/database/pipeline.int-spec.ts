import { Pool } from 'pg';
import { PipelineError, runPipeline } from '@baseplate/database';

/** runPipeline: several statements, one write, one round trip, one implicit transaction. */
describe('runPipeline against PostgreSQL', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: process.env.BASEPLATE_TEST_ADMIN_URL, max: 1 });
  });
  afterAll(() => pool.end());

  it('runs the statements in order in one transaction: local settings carry over', async () => {
    const client = await pool.connect();
    try {
      const [set, read, tx] = await runPipeline(client, [
        { text: "SELECT set_config('app.probe', $1, true) AS v", values: ['hello'] },
        { text: "SELECT current_setting('app.probe') AS v, $1::int + 1 AS n", values: [41] },
        { text: 'SELECT txid_current() AS a, txid_current() AS b', values: [] },
      ]);
      expect(set).toEqual([{ v: 'hello' }]);
      expect(read).toEqual([{ v: 'hello', n: '42' }]);
      expect(tx![0]!.a).toBe(tx![0]!.b);
      // The implicit transaction ended at the Sync: the local setting is gone.
      const after = await client.query("SELECT current_setting('app.probe', true) AS v");
      expect(after.rows[0].v).toBe('');
    } finally {
      client.release();
    }
  });

  it('reports the first error with the rows before it, rolls back, and leaves the connection usable', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS pipeline_probe (id int)');
    await pool.query('TRUNCATE pipeline_probe');
    const client = await pool.connect();
    try {
      const failure = await runPipeline(client, [
        { text: 'INSERT INTO pipeline_probe VALUES ($1) RETURNING id', values: [1] },
        { text: 'SELECT 1 / $1::int AS boom', values: [0] },
        { text: 'INSERT INTO pipeline_probe VALUES (2)', values: [] },
      ]).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(PipelineError);
      const error = failure as PipelineError;
      expect(error.fromServer).toBe(true);
      expect((error.error as { code: string }).code).toBe('22012');
      expect(error.partial[0]).toEqual([{ id: '1' }]);
      const count = await client.query('SELECT count(*)::int AS n FROM pipeline_probe');
      expect(count.rows[0].n).toBe(0);
      const again = await runPipeline(client, [{ text: 'SELECT $1::text AS t', values: ['ok'] }]);
      expect(again).toEqual([[{ t: 'ok' }]]);
    } finally {
      client.release();
      await pool.query('DROP TABLE pipeline_probe');
    }
  });
});
