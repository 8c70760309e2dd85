import { Pool, PoolClient } from 'pg';
import {
  connectionUrl,
  PipelinedStatementError,
  quoteIdent,
  withClient,
  pipelinedStatement,
  pipelinedTransaction,
  PipelineError,
  runPipeline,
} from '@baseplate/database';

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

describe('pipelinedTransaction against PostgreSQL', () => {
  // Its own database: the request settings read _platform.schema_version.
  const dbName = `bp_pipeline_${process.env.BASEPLATE_TEST_RUN_ID ?? process.pid}`;
  const adminUrl = process.env.BASEPLATE_TEST_ADMIN_URL!;
  let pool: Pool;
  beforeAll(async () => {
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(dbName)}`));
    pool = new Pool({ connectionString: connectionUrl(adminUrl, dbName), max: 1 });
    await pool.query(`CREATE SCHEMA _platform;
      CREATE TABLE _platform.schema_version (id boolean PRIMARY KEY, version bigint NOT NULL);
      INSERT INTO _platform.schema_version VALUES (true, 7);
      CREATE TABLE pipeline_tx_probe (id int PRIMARY KEY);`);
  });
  afterAll(async () => {
    await pool.end();
    await withClient(adminUrl, (c) => c.query(`DROP DATABASE ${quoteIdent(dbName)} WITH (FORCE)`));
  });

  const settings = {
    role: 'postgres',
    claims: {},
    method: 'POST',
    path: '/pipeline_tx_probe',
    searchPath: ['public'],
  };
  const insert = (id: number) => ({
    text: 'INSERT INTO pipeline_tx_probe VALUES ($1) RETURNING id, current_setting($2) AS role',
    values: [id, 'role'],
  });
  const ids = async () =>
    (await pool.query('SELECT id FROM pipeline_tx_probe ORDER BY id')).rows.map((r) => r.id);

  it('commits or rolls back as finish decides, with the settings applied to the statement', async () => {
    const seen = await pipelinedTransaction(pool, settings, insert(1), (r) => ({
      commit: true,
      value: r.rows,
    }));
    expect(seen).toEqual([{ id: '1', role: 'postgres' }]);
    await pipelinedTransaction(pool, settings, insert(2), () => ({ commit: false, value: null }));
    await expect(
      pipelinedTransaction(pool, settings, insert(3), () => {
        throw new Error('singular check failed');
      }),
    ).rejects.toThrow('singular check failed');
    expect(await ids()).toEqual([1]);
  });

  it('reports a failing statement with the schema version, rolled back, connection reusable', async () => {
    const failure = await pipelinedTransaction(pool, settings, insert(1), () => ({
      commit: true,
      value: null,
    })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PipelinedStatementError);
    expect(((failure as PipelinedStatementError).error as { code: string }).code).toBe('23505');
    expect((failure as PipelinedStatementError).schemaVersion).toBe(7);
    await pipelinedTransaction(pool, settings, insert(4), () => ({ commit: true, value: null }));
    expect(await ids()).toEqual([1, 4]);
  });

  it('pipelinedStatement: one statement with the settings, committed when it answers, rows parsed', async () => {
    const result = await pipelinedStatement(pool, settings, {
      text: `INSERT INTO pipeline_tx_probe VALUES ($1)
             RETURNING id, current_setting('role') AS role, now() AS at, '{"a": 1}'::jsonb AS j,
                       txid_current_if_assigned() IS NOT NULL AS wrote`,
      values: [5],
    });
    expect(result.schemaVersion).toBe(7);
    expect(result.rows).toEqual([
      { id: 5, role: 'postgres', at: expect.any(Date), j: { a: 1 }, wrote: true },
    ]);
    // Committed: another connection sees it at once.
    const other = new Pool({ connectionString: connectionUrl(adminUrl, dbName), max: 1 });
    try {
      const seen = await other.query('SELECT id FROM pipeline_tx_probe WHERE id = 5');
      expect(seen.rows).toEqual([{ id: 5 }]);
    } finally {
      await other.end();
    }
    const failure = await pipelinedStatement(pool, settings, {
      text: 'INSERT INTO pipeline_tx_probe VALUES ($1), ($2)',
      values: [6, 5],
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PipelinedStatementError);
    expect((failure as PipelinedStatementError).schemaVersion).toBe(7);
    expect(await ids()).toEqual([1, 4, 5]);
  });
});

describe('runPipeline prepared statements', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: process.env.BASEPLATE_TEST_ADMIN_URL, max: 1 });
  });
  afterAll(() => pool.end());

  const preparedNames = async (client: PoolClient) =>
    (
      await client.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'bp\\_%' ORDER BY name",
      )
    ).rows.map((r) => r.name);

  it('prepares once per generation, and closes the names of an older one', async () => {
    await pool.query('DROP TABLE IF EXISTS pipeline_prep; CREATE TABLE pipeline_prep (c int)');
    await pool.query('INSERT INTO pipeline_prep VALUES (1)');
    const client = await pool.connect();
    try {
      const select = {
        text: 'SELECT count(*) AS n FROM pipeline_prep WHERE c = $1',
        values: ['1'],
      };
      expect(await runPipeline(client, [select], 1)).toEqual([[{ n: '1' }]]);
      const first = await preparedNames(client);
      expect(first).toHaveLength(1);
      expect(await runPipeline(client, [select], 1)).toEqual([[{ n: '1' }]]);
      expect(await preparedNames(client)).toEqual(first);
      // DDL changes the column's type: under the next schema version the statement is
      // parsed afresh (the old one, with an int parameter, would now fail).
      await client.query('ALTER TABLE pipeline_prep ALTER COLUMN c TYPE text');
      const text = { text: select.text, values: ['1'] };
      expect(await runPipeline(client, [text], 2)).toEqual([[{ n: '1' }]]);
      const second = await preparedNames(client);
      expect(second).toHaveLength(1);
      expect(second).not.toEqual(first);
    } finally {
      client.release();
      await pool.query('DROP TABLE pipeline_prep');
    }
  });

  it('forgets and closes what a failed batch prepared', async () => {
    const client = await pool.connect();
    try {
      const before = await preparedNames(client);
      await expect(
        runPipeline(
          client,
          [
            { text: 'SELECT 1 AS ok', values: [] },
            { text: 'SELECT 1 / $1::int AS boom', values: [0] },
          ],
          3,
        ),
      ).rejects.toBeInstanceOf(PipelineError);
      await runPipeline(client, [{ text: 'SELECT 2 AS ok', values: [] }], 3);
      const after = await preparedNames(client);
      // Only the statement of the successful batch remains (older generations closed too).
      expect(after).toHaveLength(1);
      expect(after).not.toEqual(expect.arrayContaining(before));
    } finally {
      client.release();
    }
  });
});
