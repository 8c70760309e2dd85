/**
 * bench/rest: the REST API under load against a raw-`pg` baseline, measured in the same run.
 * Scenarios (user token, RLS policy `owner = auth.uid()` on every row):
 *   (a) single-row GET by primary key     GET /bench_items?id=eq.<random>
 *   (b) 20-row filtered, ordered read     GET /bench_items?qty=gt.50&order=id.desc&limit=20
 *   (c) single-row insert                 POST /bench_items (return=minimal)
 * The baseline sends the same transaction straight through `pg`: BEGIN, the request
 * settings statement, the very SQL the engine builds for the request, COMMIT — with the same
 * concurrency and as many connections as the data plane's project pool. Load generators run
 * in a child process (bench/rest-load), the server in this one.
 *   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL,
 *   BENCH_CONNECTIONS (50), BENCH_DURATION_S (10), BENCH_POOL (10)
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { Pool } from 'pg';
import { authenticatorPassword } from '@baseplate/config';
import { ProjectContextReader } from '@baseplate/control-db';
import {
  AUTHENTICATOR_ROLE,
  connectionUrl,
  requestSettingsQuery,
  withClient,
} from '@baseplate/database';
import {
  buildStatement,
  decodeQueryString,
  loadSchemaCache,
  parseRequest,
  plan,
  type Target,
} from '@baseplate/rest-engine';
import { SecretBox } from '@baseplate/security';
import {
  adminUrl,
  createBenchProject,
  json,
  runBench,
  runLoad,
  startBenchPlatform,
} from './platform';
import type { HttpLoad, LoadResult, PgLoad } from './rest-load';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const poolSize = Number(process.env.BENCH_POOL ?? 10);
const ROWS = 10_000;

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** The id value in the built statement to randomise (GET by id). */
  randomId: boolean;
}

const fmtRow = (label: string, r: LoadResult) =>
  `${label.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99
    .toFixed(2)
    .padStart(7)} ms   (${r.requests} requests, ${r.errors} errors)`;

async function main(): Promise<void> {
  const platform = await startBenchPlatform({ PROJECT_POOL_MAX: String(poolSize) });
  const { config, controlUrl, dataUrl } = platform;
  let ref: string | undefined;
  const controlPool = new Pool({ connectionString: config.databaseUrl, max: 2 });
  try {
    const project = await createBenchProject(platform);
    ref = project.ref;
    const token = project.token;
    const owner = randomUUID();
    const sql = await json(`${controlUrl}/v1/projects/${ref}/database/query`, 'POST', {
      token,
      body: {
        query: `
        CREATE TABLE bench_items (id serial PRIMARY KEY, owner uuid NOT NULL, name text NOT NULL, qty int NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX bench_items_owner_qty ON bench_items (owner, qty);
        ALTER TABLE bench_items ENABLE ROW LEVEL SECURITY;
        CREATE POLICY owner_all ON bench_items TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
        GRANT ALL ON bench_items TO authenticated; GRANT ALL ON SEQUENCE bench_items_id_seq TO authenticated;
        INSERT INTO bench_items (owner, name, qty) SELECT '${owner}', 'item ' || g, g % 100 FROM generate_series(1, ${ROWS}) g;
        ANALYZE bench_items;`,
      },
    });
    if (sql.status >= 300) throw new Error(`fixture failed: ${JSON.stringify(sql.body)}`);

    const context = await new ProjectContextReader(
      controlPool,
      new SecretBox(config.masterKey),
    ).read(ref);
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: owner, role: 'authenticated', ref, aud: 'authenticated' };
    const userToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(context!.jwtSecret!));
    const projectDbUrl = connectionUrl(adminUrl, context!.dbName, {
      name: AUTHENTICATOR_ROLE,
      password: authenticatorPassword(config),
    });
    const cache = await withClient(connectionUrl(adminUrl, context!.dbName), async (c) => {
      const v = await c.query<{ version: string }>('SELECT version FROM _platform.schema_version');
      return loadSchemaCache(c, Number(v.rows[0]!.version));
    });

    const scenarios: Scenario[] = [
      {
        name: '(a) GET one row by id',
        method: 'GET',
        path: '/bench_items?id=eq.{id}',
        randomId: true,
      },
      {
        name: '(b) GET 20 rows, filtered + ordered',
        method: 'GET',
        path: '/bench_items?qty=gt.50&order=id.desc&limit=20',
        randomId: false,
      },
      {
        name: '(c) POST one row',
        method: 'POST',
        path: '/bench_items',
        body: JSON.stringify({ owner, name: 'new item', qty: 5 }),
        randomId: false,
      },
    ];
    const lines: string[] = [];
    for (const s of scenarios) {
      const [path, query = ''] = s.path.split('?');
      const parsed = parseRequest({
        params: decodeQueryString(query.replace('{id}', '__ID__')),
        method: s.method,
      });
      const target: Target = { kind: 'table', name: path!.slice(1) };
      const built = buildStatement(
        plan({
          method: s.method,
          target,
          request: parsed,
          schema: 'public',
          cache,
          ...(s.body === undefined
            ? {}
            : { body: { contentType: 'application/json', text: s.body } }),
          maxRows: context!.rest.maxRows,
        }),
      );
      const settings = requestSettingsQuery({
        role: 'authenticated',
        claims: { ...claims, iat: now, exp: now + 3600 },
        method: s.method,
        path: path!,
        searchPath: ['public'],
        headers: { 'content-type': 'application/json' },
        statementTimeoutMs: config.restStatementTimeoutMs,
      });
      const headers: Record<string, string> = {
        apikey: userToken,
        authorization: `Bearer ${userToken}`,
        'content-type': 'application/json',
      };
      const http: HttpLoad = {
        mode: 'http',
        url: `${dataUrl}/projects/${ref}/rest/v1`,
        method: s.method,
        headers,
        path: `/projects/${ref}/rest/v1${s.path}`,
        ...(s.body === undefined ? {} : { body: s.body }),
        idMax: ROWS,
        connections,
        durationS,
      };
      const pg: PgLoad = {
        mode: 'pg',
        connectionString: projectDbUrl,
        poolSize,
        begin: s.method === 'GET' ? 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY' : 'BEGIN',
        settings,
        statement: built,
        idIndex: s.randomId ? built.values.indexOf('__ID__') : -1,
        idMax: ROWS,
        connections,
        durationS,
      };
      // Warm-up: pools, schema cache, JIT.
      await runLoad({ ...http, durationS: 2 });
      const rest = await runLoad(http);
      const base = await runLoad(pg);
      lines.push(
        `${s.name}\n  ${fmtRow('REST', rest)}\n  ${fmtRow('raw pg', base)}\n  ratio REST/raw pg throughput: ${(rest.rps / base.rps).toFixed(2)}`,
      );
      console.log(lines[lines.length - 1]);
    }
    console.log(
      `\nbench/rest: ${connections} connections, ${durationS} s per run, project pool ${poolSize}, ${ROWS} rows, Node ${process.version}`,
    );
  } finally {
    await controlPool.end();
    await platform.close(ref ? [ref] : []);
  }
}

runBench(main);
