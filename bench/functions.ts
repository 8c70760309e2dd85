/**
 * bench/functions: edge function cold starts and warm invocations of a trivial handler through
 * the full HTTP path, against the same handler called in-process in the same run.
 *   cold, deploy:     POST {control}/v1/projects/{ref}/functions (timed to its 201), then at once
 *                     the first POST {data}/projects/{ref}/functions/v1/{slug} (timed to its 200;
 *                     a 404 before the data plane hears of the deploy is retried and counted)
 *   cold, idle:       a call, a wait until the function's process was stopped for idleness
 *                     (FUNCTIONS_IDLE_MS, seen in /proc), then the timed call
 *   warm latency:     sequential calls over one kept-alive connection
 *   warm throughput:  autocannon (bench/rest-load) with BENCH_CONNECTIONS connections
 * Baselines, same run: the handler compiled by the deploy's esbuild step and called directly in
 * this process (JSON parse, call, JSON stringify); the process driver alone (`runtime.invoke`
 * in this process: IPC to a warm child, no HTTP, database or auth); GET {data}/health (the data
 * plane's HTTP floor); for cold starts, the driver alone (spawn, load, first call; again without
 * NODE_EXTRA_CA_CERTS when it is set, since workers inherit it and Node parses that bundle at
 * boot) and a bare `node -e` child with an empty environment to its first IPC message (Node's
 * boot floor). The HTTP client runs in a child process (bench/functions-client), so the
 * platform's event loop is its own.
 *   DATABASE_URL / REDIS_URL optional; BENCH_COLD (20 per kind), BENCH_WARM (2000 calls per
 *   round), BENCH_REPEAT (3 rounds of the warm figures, variants rotating which goes first),
 *   BENCH_CONNECTIONS (16), BENCH_DURATION_S (10 per throughput round), BENCH_IDLE_MS (1000,
 *   the platform's FUNCTIONS_IDLE_MS).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { compileFunction as compileVm } from 'node:vm';
import { FUNCTION_DEFAULTS } from '@baseplate/control-db';
import {
  createFunctionRuntime,
  createProcessRuntime,
  type FunctionRuntime,
} from '@baseplate/functions-runtime';
import { compileFunction } from '../apps/worker/src/functions/function-compiler';
import type {
  ClientJob,
  ClientRequest,
  DeployCallResult,
  SequentialResult,
  Timed,
} from './functions-client';
import {
  type BenchPlatform,
  createBenchProject,
  json,
  runBench,
  runLoad,
  startBenchPlatform,
  table,
} from './platform';
import type { LoadResult } from './rest-load';

const coldN = Number(process.env.BENCH_COLD ?? 20);
const warmN = Number(process.env.BENCH_WARM ?? 2000);
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const idleMs = Number(process.env.BENCH_IDLE_MS ?? 1000);
/** Untimed calls before each timed sequence. */
const WARMUP = 200;
/** Load before each throughput round of the platform, so its second worker is up. */
const LOAD_WARMUP_S = 1;
const SLUG = 'hello';
/** The trivial handler, as a user would deploy it (TypeScript, ES module). */
const SOURCE = `export default async function (payload: { n?: number }) {
  return { ok: true, n: payload.n ?? 0 };
}
`;
const PAYLOAD = { n: 1 };
const PAYLOAD_JSON = JSON.stringify(PAYLOAD);
/** A project ref for the baselines' own runtime (the platform never sees it). */
const BASELINE_REF = 'benchbaseline';

// --- figures --------------------------------------------------------------------------------

/** Nearest-rank percentile: p99 of 20 samples is the worst one. */
function pct(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const median = (xs: number[]): number => pct(xs, 0.5);

const ms = (x: number): string =>
  Number.isNaN(x) ? '–' : `${x.toFixed(x < 1 ? 3 : x < 10 ? 2 : 1)} ms`;
const spreadMs = (xs: number[]): string =>
  xs.length === 1
    ? ms(xs[0]!)
    : `${ms(median(xs))} (${ms(Math.min(...xs)).replace(' ms', '')}–${ms(Math.max(...xs))})`;
const spreadWholeMs = (xs: number[]): string =>
  `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms)`;
const spreadRate = (xs: number[]): string =>
  `${median(xs).toFixed(0)}/s (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

// --- the client child -----------------------------------------------------------------------

interface Client {
  run<T>(job: ClientJob): Promise<T>;
  close(): void;
}

function startClient(): Client {
  const child: ChildProcess = fork(join(__dirname, 'functions-client.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  let next = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.result);
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`client exited (${code})`));
    waiting.clear();
  });
  return {
    run<T>(job: ClientJob): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, job });
      });
    },
    close: () => child.kill(),
  };
}

// --- function processes of this process (the platform's and the baselines') -------------------

/** Live runner processes whose parent is this process (`runner.js` in their command line). */
function functionProcesses(): number {
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      // A zombie's command line is empty: it no longer counts.
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('runner.js')) n++;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return n;
}

const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** Waits until no function process is alive; the milliseconds that took. */
async function untilNoFunctionProcess(limitMs: number): Promise<number> {
  const started = performance.now();
  while (functionProcesses() > 0) {
    if (performance.now() - started > limitMs) {
      throw new Error(`function processes still alive after ${limitMs} ms`);
    }
    await sleep(20);
  }
  return performance.now() - started;
}

// --- baselines in this process ----------------------------------------------------------------

type Handler = (payload: unknown) => unknown;

/** The compiled CommonJS evaluated as the runner does, without its sandbox. */
function loadHandler(code: string): Handler {
  const mod: { exports: unknown } = { exports: {} };
  const fn = compileVm(code, ['exports', 'require', 'module'], { filename: 'function.js' });
  fn.call(mod.exports, mod.exports, require, mod);
  const ex = mod.exports as { default?: unknown; handler?: unknown } | Handler;
  const found = typeof ex === 'function' ? ex : (ex.default ?? ex.handler);
  if (typeof found !== 'function') throw new Error('the compiled handler exports nothing');
  return found as Handler;
}

async function timeLoop(count: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await once();
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await once();
    out[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  return out;
}

/** `concurrency` loops calling `once` for durationS seconds. */
async function throughputLoop(
  concurrency: number,
  seconds: number,
  once: () => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t = performance.now();
      if (!(await once())) errors++;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  return {
    rps: latencies.length / elapsed,
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    requests: latencies.length,
    errors,
  };
}

/**
 * Spawn → first IPC message of `node -e` with an empty environment: what any
 * process-per-function design pays.
 */
function nodeBoot(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, ['-e', "process.send('up')"], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: {},
    });
    child.once('message', () => {
      resolve(performance.now() - t);
      child.kill('SIGKILL');
    });
    child.once('error', reject);
  });
}

/** The baselines' own process-driver runtime, with the platform's settings but no idle stop. */
function baselineRuntime(platform: BenchPlatform): FunctionRuntime {
  return createFunctionRuntime({ ...platform.config, functionsIdleMs: 3_600_000 });
}

/**
 * The same without NODE_EXTRA_CA_CERTS, which the platform passes on to every worker (Node
 * parses the bundle it names at boot); set only when this process has it.
 */
function baselineRuntimeWithoutCa(platform: BenchPlatform): FunctionRuntime | undefined {
  if (!process.env.NODE_EXTRA_CA_CERTS) return undefined;
  const { config } = platform;
  return createProcessRuntime({
    uid: config.functionsUid,
    maxWorkers: config.functionsMaxWorkers,
    idleMs: 3_600_000,
    recycleAfter: config.functionsRecycleAfter,
    prlimitPath:
      process.platform === 'linux'
        ? ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p))
        : null,
  });
}

/** Spawn, load and the first call of a new version in a driver of this process. */
async function driverCold(
  runtime: FunctionRuntime,
  version: number,
  code: string,
): Promise<{ load: number; call: number }> {
  const fn = { ref: BASELINE_REF, slug: 'cold', version };
  let t = performance.now();
  await runtime.deploy({ ...fn, code, limits });
  const load = performance.now() - t;
  t = performance.now();
  const outcome = await runtime.invoke(fn, PAYLOAD);
  const call = performance.now() - t;
  if (outcome.status !== 'ok') throw new Error(`driver: ${JSON.stringify(outcome)}`);
  await runtime.remove(BASELINE_REF);
  return { load, call };
}

const limits = { ...FUNCTION_DEFAULTS, maxConcurrency: 1000 };

// --- the run ----------------------------------------------------------------------------------

interface ColdFigures {
  deployRequest: number[];
  deployFirstCall: number[];
  deployTotal: number[];
  deployRetries: number;
  afterIdle: number[];
  reapWait: number[];
  driverLoad: number[];
  driverFirstCall: number[];
  driverLoadNoCa: number[];
  nodeBoot: number[];
}

type LatencyVariant = 'inproc' | 'driver' | 'health' | 'http';
type RateVariant = 'driver' | 'health' | 'http';

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const platform = await startBenchPlatform({ FUNCTIONS_IDLE_MS: String(idleMs) });
  const { controlUrl, dataUrl } = platform;
  const client = startClient();
  let ref: string | undefined;
  try {
    const project = await createBenchProject(platform);
    ref = project.ref;
    const token = project.token;
    const cfg = await json(`${controlUrl}/v1/projects/${ref}/config/functions`, 'PATCH', {
      token,
      body: { max_concurrency: 1000 },
    });
    if (cfg.status !== 200) throw new Error(`config: ${JSON.stringify(cfg.body)}`);
    const keys = (await json(`${controlUrl}/v1/projects/${ref}/api-keys`, 'GET', { token }))
      .body as unknown as Array<{ name: string; api_key: string }>;
    const service = keys.find((k) => k.name === 'service_role')!.api_key;
    const deployReq = (slug: string): ClientRequest => ({
      method: 'POST',
      url: `${controlUrl}/v1/projects/${ref}/functions`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug, name: slug, body: SOURCE }),
    });
    const invokePath = (slug: string) => `/projects/${ref}/functions/v1/${slug}`;
    const invokeHeaders = {
      authorization: `Bearer ${service}`,
      'content-type': 'application/json',
    };
    const invokeReq = (slug: string): ClientRequest => ({
      method: 'POST',
      url: `${dataUrl}${invokePath(slug)}`,
      headers: invokeHeaders,
      body: PAYLOAD_JSON,
    });
    const healthReq: ClientRequest = { method: 'GET', url: `${dataUrl}/health`, headers: {} };
    const expectOk = (what: string, r: Timed, status = 200) => {
      if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.body}`);
    };

    const code = await compileFunction(SOURCE, SLUG);
    const handler = loadHandler(code);
    const direct = JSON.stringify(await handler(JSON.parse(PAYLOAD_JSON)));

    // --- cold starts ---
    const cold: ColdFigures = {
      deployRequest: [],
      deployFirstCall: [],
      deployTotal: [],
      deployRetries: 0,
      afterIdle: [],
      reapWait: [],
      driverLoad: [],
      driverFirstCall: [],
      driverLoadNoCa: [],
      nodeBoot: [],
    };
    const coldRuntime = baselineRuntime(platform);
    const noCaRuntime = baselineRuntimeWithoutCa(platform);
    try {
      for (let i = 0; i < coldN; i++) {
        cold.nodeBoot.push(await nodeBoot());
        const r = await driverCold(coldRuntime, i + 1, code);
        cold.driverLoad.push(r.load);
        cold.driverFirstCall.push(r.call);
        if (noCaRuntime)
          cold.driverLoadNoCa.push((await driverCold(noCaRuntime, i + 1, code)).load);
      }
    } finally {
      await coldRuntime.close();
      await noCaRuntime?.close();
    }

    for (let i = 0; i < coldN; i++) {
      const slug = `cold-${i}`;
      const r = await client.run<DeployCallResult>({
        kind: 'deploy-call',
        deploy: deployReq(slug),
        call: invokeReq(slug),
      });
      expectOk('deploy', r.deploy, 201);
      expectOk('first call', r.call);
      if (r.call.body !== direct) throw new Error(`first call answered ${r.call.body}`);
      cold.deployRequest.push(r.deploy.ms);
      cold.deployFirstCall.push(r.call.ms);
      cold.deployTotal.push(r.deploy.ms + r.call.ms);
      cold.deployRetries += r.call.retries;
    }

    // The function the rest of the run calls: deployed last, so no later deploy stops it.
    expectOk('deploy', await client.run<Timed>({ kind: 'one', req: deployReq(SLUG) }), 201);
    for (let i = 0; i < coldN; i++) {
      expectOk('warming call', await client.run<Timed>({ kind: 'one', req: invokeReq(SLUG) }));
      cold.reapWait.push(await untilNoFunctionProcess(idleMs * 5 + 5_000));
      const r = await client.run<Timed>({ kind: 'one', req: invokeReq(SLUG) });
      expectOk('call after idle', r);
      cold.afterIdle.push(r.ms);
    }

    // --- warm latency ---
    const lat: Record<LatencyVariant, { p50: number[]; p99: number[] }> = {
      inproc: { p50: [], p99: [] },
      driver: { p50: [], p99: [] },
      health: { p50: [], p99: [] },
      http: { p50: [], p99: [] },
    };
    const rate: Record<RateVariant, LoadResult[]> = { driver: [], health: [], http: [] };
    let httpErrors = 0;
    const runtime = baselineRuntime(platform);
    try {
      const fn = { ref: BASELINE_REF, slug: SLUG, version: 1 };
      await runtime.deploy({ ...fn, code, limits });
      const latencyOf: Record<LatencyVariant, () => Promise<number[]>> = {
        inproc: () =>
          timeLoop(warmN, async () => JSON.stringify(await handler(JSON.parse(PAYLOAD_JSON)))),
        driver: () => timeLoop(warmN, () => runtime.invoke(fn, PAYLOAD)),
        health: async () => {
          const r = await client.run<SequentialResult>({
            kind: 'seq',
            req: healthReq,
            count: warmN,
            warmup: WARMUP,
          });
          httpErrors += r.errors;
          return r.latencies;
        },
        http: async () => {
          const r = await client.run<SequentialResult>({
            kind: 'seq',
            req: invokeReq(SLUG),
            count: warmN,
            warmup: WARMUP,
          });
          httpErrors += r.errors;
          return r.latencies;
        },
      };
      const latencyOrder: LatencyVariant[] = ['http', 'inproc', 'health', 'driver'];
      for (let round = 0; round < repeat; round++) {
        for (let k = 0; k < latencyOrder.length; k++) {
          const v = latencyOrder[(round + k) % latencyOrder.length]!;
          const xs = await latencyOf[v]();
          lat[v].p50.push(pct(xs, 0.5));
          lat[v].p99.push(pct(xs, 0.99));
        }
      }

      // --- warm throughput ---
      const load = (path: string, method: 'GET' | 'POST', seconds: number) =>
        runLoad({
          mode: 'http',
          url: dataUrl,
          method,
          headers: method === 'POST' ? invokeHeaders : {},
          path,
          ...(method === 'POST' ? { body: PAYLOAD_JSON } : {}),
          idMax: 1,
          connections,
          durationS: seconds,
        });
      const rateOf: Record<RateVariant, () => Promise<LoadResult>> = {
        http: async () => {
          await load(invokePath(SLUG), 'POST', LOAD_WARMUP_S);
          return load(invokePath(SLUG), 'POST', durationS);
        },
        health: () => load('/health', 'GET', durationS),
        driver: () =>
          throughputLoop(connections, durationS, async () => {
            return (await runtime.invoke(fn, PAYLOAD)).status === 'ok';
          }),
      };
      const rateOrder: RateVariant[] = ['http', 'health', 'driver'];
      for (let round = 0; round < repeat; round++) {
        for (let k = 0; k < rateOrder.length; k++) {
          const v = rateOrder[(round + k) % rateOrder.length]!;
          rate[v].push(await rateOf[v]());
        }
      }
    } finally {
      await runtime.close();
    }
    const loadAfter = loadavg();

    // --- report ---
    const coldRows: Array<[string, number[]]> = [
      ['deploy request (POST → 201)', cold.deployRequest],
      ['deploy: first call (201 → first 200)', cold.deployFirstCall],
      ['deploy → first response (sum)', cold.deployTotal],
      [`first call after idle (> ${idleMs} ms)`, cold.afterIdle],
      ['baseline: driver spawn + load', cold.driverLoad],
      ['baseline: driver first call', cold.driverFirstCall],
      ['baseline: driver spawn + load, no NODE_EXTRA_CA_CERTS', cold.driverLoadNoCa],
      ['baseline: node -e boot, empty env (spawn → IPC)', cold.nodeBoot],
    ];
    console.log(
      `\nCold starts (${coldN} each; p99 of ${coldN} samples is the worst; 404 retries on the first call: ${cold.deployRetries}; idle worker stopped ${ms(median(cold.reapWait))} after the call, median)`,
    );
    console.log(
      table(
        ['measurement', 'p50', 'p99', 'min'],
        coldRows
          .filter(([, xs]) => xs.length > 0)
          .map(([label, xs]) => [label, ms(pct(xs, 0.5)), ms(pct(xs, 0.99)), ms(Math.min(...xs))]),
      ),
    );

    const latLabel: Record<LatencyVariant, string> = {
      http: 'function via HTTP (POST …/functions/v1/hello)',
      inproc: 'handler in-process (JSON parse, call, stringify)',
      driver: 'process driver in-process (runtime.invoke, IPC)',
      health: 'GET /health (data plane HTTP floor)',
    };
    const order: LatencyVariant[] = ['http', 'inproc', 'driver', 'health'];
    console.log(
      `\nWarm latency (${warmN} sequential calls after ${WARMUP} warm-up, ${repeat} rounds; median (min–max) over rounds)`,
    );
    console.log(
      table(
        ['measurement', 'p50', 'p99'],
        order.map((v) => [latLabel[v], spreadMs(lat[v].p50), spreadMs(lat[v].p99)]),
      ),
    );
    const overhead = lat.http.p50.map((x, i) => x - lat.inproc.p50[i]!);
    const ipc = lat.driver.p50.map((x, i) => x - lat.inproc.p50[i]!);
    const aboveFloor = lat.http.p50.map((x, i) => x - lat.health.p50[i]! - ipc[i]!);
    console.log(
      `warm overhead p50 (HTTP − in-process, per round): ${spreadMs(overhead)}; of which IPC to the worker ${spreadMs(ipc)}, HTTP floor ${spreadMs(lat.health.p50)}, the rest (context, key, routing, record) ${spreadMs(aboveFloor)}; non-2xx: ${httpErrors}`,
    );

    const rateLabel: Record<RateVariant, string> = {
      http: 'function via HTTP',
      driver: 'process driver in-process',
      health: 'GET /health',
    };
    console.log(
      `\nWarm throughput (${connections} connections, ${durationS} s, ${repeat} rounds; median (min–max))`,
    );
    console.log(
      table(
        ['measurement', 'throughput', 'p50', 'p99', 'errors'],
        (['http', 'driver', 'health'] as RateVariant[]).map((v) => {
          // autocannon reports whole milliseconds.
          const lat = v === 'driver' ? spreadMs : spreadWholeMs;
          return [
            rateLabel[v],
            spreadRate(rate[v].map((r) => r.rps)),
            lat(rate[v].map((r) => r.p50)),
            lat(rate[v].map((r) => r.p99)),
            String(rate[v].reduce((a, r) => a + r.errors, 0)),
          ];
        }),
      ),
    );
    const warmOk = median(overhead) < 2;
    const coldOk = pct(cold.afterIdle, 0.5) < 100;
    console.log(
      `\nTargets: warm overhead p50 < 2 ms: ${warmOk ? 'met' : 'MISSED'} (${ms(median(overhead))}); cold start p50 < 100 ms (first call after idle): ${coldOk ? 'met' : 'MISSED'} (${ms(pct(cold.afterIdle, 0.5))})`,
    );
    console.log(
      `bench/functions: Node ${process.version}, FUNCTIONS_IDLE_MS=${idleMs}, FUNCTIONS_MAX_WORKERS=${platform.config.functionsMaxWorkers}, NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? '(unset)'}, load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after`,
    );
  } finally {
    client.close();
    await platform.close(ref ? [ref] : []);
  }
}

runBench(main);
