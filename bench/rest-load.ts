/**
 * The load-generator half of bench/rest: run as a child process so the server process and
 * the load generator do not share an event loop. Prints one JSON line:
 * `{ rps, p50, p99, requests, errors }`.
 *   http: autocannon against the data plane;
 *   pg:   the same transaction (BEGIN, settings, the engine's statement, COMMIT) straight
 *         through `pg`, with the same concurrency and the same number of connections.
 */
import { readFileSync } from 'node:fs';
import * as argon2 from 'argon2';
import autocannon from 'autocannon';
import { Pool } from 'pg';

export interface HttpLoad {
  mode: 'http';
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** `{id}` in path or body is replaced by a random id in [1, idMax]. */
  path: string;
  body?: string;
  idMax: number;
  /**
   * A file of one-use values, one per line: `{token}` in the body takes the next one per
   * request (refresh tokens, each valid once).
   */
  tokensFile?: string;
  connections: number;
  durationS: number;
}

/** The raw argon2 verify rate: the floor of a password sign-in. */
export interface Argon2Load {
  mode: 'argon2';
  hash: string;
  password: string;
  connections: number;
  durationS: number;
}

export interface PgLoad {
  mode: 'pg';
  connectionString: string;
  poolSize: number;
  begin: string;
  settings: { text: string; values: unknown[] };
  statement: { text: string; values: unknown[] };
  /** Index in statement.values replaced by a random id (or -1). */
  idIndex: number;
  idMax: number;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

const randomId = (max: number): number => 1 + Math.floor(Math.random() * max);

async function runHttp(spec: HttpLoad): Promise<LoadResult> {
  const tokens = spec.tokensFile ? readFileSync(spec.tokensFile, 'utf8').split('\n') : [];
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationS,
    requests: [
      {
        method: spec.method,
        headers: spec.headers,
        setupRequest: (req) => {
          const id = String(randomId(spec.idMax));
          return {
            ...req,
            path: spec.path.replace('{id}', id),
            ...(spec.body === undefined
              ? {}
              : { body: spec.body.replace('{id}', id).replace('{token}', tokens[next++] ?? '') }),
          };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
  };
}

/** `connections` concurrent verifies for `durationS`: what argon2 alone sustains here. */
async function runArgon2(spec: Argon2Load): Promise<LoadResult> {
  return timedLoop(spec.connections, spec.durationS, async () => {
    if (!(await argon2.verify(spec.hash, spec.password))) throw new Error('verify failed');
  });
}

async function timedLoop(
  concurrency: number,
  durationS: number,
  once: () => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + durationS * 1000;
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      try {
        await once();
      } catch {
        errors++;
      }
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    rps: latencies.length / durationS,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
    errors,
  };
}

async function runPg(spec: PgLoad): Promise<LoadResult> {
  const pool = new Pool({ connectionString: spec.connectionString, max: spec.poolSize });
  try {
    return await timedLoop(spec.connections, spec.durationS, async () => {
      const values = [...spec.statement.values];
      if (spec.idIndex >= 0) values[spec.idIndex] = String(randomId(spec.idMax));
      const client = await pool.connect();
      try {
        await client.query(spec.begin);
        await client.query(spec.settings.text, spec.settings.values);
        await client.query(spec.statement.text, values);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    });
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as HttpLoad | PgLoad | Argon2Load;
  const result =
    spec.mode === 'http'
      ? await runHttp(spec)
      : spec.mode === 'argon2'
        ? await runArgon2(spec)
        : await runPg(spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
