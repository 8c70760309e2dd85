/**
 * The HTTP client half of bench/functions, forked with an IPC channel so its event loop is not
 * the platform's: the benchmark process says what to send, this process sends it over one
 * kept-alive `node:http` connection and times it (request written → response body read).
 * Messages: `{id, job}` in, `{id, result}` or `{id, error}` out.
 */
import { Agent, request } from 'node:http';

export interface ClientRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** `count` timed requests one after another, after `warmup` untimed ones. */
export interface SequentialJob {
  kind: 'seq';
  req: ClientRequest;
  count: number;
  warmup: number;
}

/** One timed request; a 404 is retried at once (`retries` counts them, the time includes them). */
export interface OneJob {
  kind: 'one';
  req: ClientRequest;
}

/** A deploy request, then at once the first call of what it deployed. */
export interface DeployCallJob {
  kind: 'deploy-call';
  deploy: ClientRequest;
  call: ClientRequest;
}

export type ClientJob = SequentialJob | OneJob | DeployCallJob;

export interface Timed {
  status: number;
  ms: number;
  retries: number;
  body: string;
}

export interface SequentialResult {
  /** Milliseconds per timed request, in order. */
  latencies: number[];
  /** Requests (warm-up included) that did not answer 2xx. */
  errors: number;
}

export interface DeployCallResult {
  deploy: Timed;
  call: Timed;
}

export type ClientResult = SequentialResult | Timed | DeployCallResult;

/** 404s accepted before the first call gives up (the data plane not yet told of a deploy). */
const MAX_404_RETRIES = 1000;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(req: ClientRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    const r = request(
      req.url,
      {
        method: req.method,
        agent,
        headers: body ? { ...req.headers, 'content-length': String(body.length) } : req.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

const now = (): bigint => process.hrtime.bigint();
const msSince = (t: bigint): number => Number(now() - t) / 1e6;

async function timed(req: ClientRequest): Promise<Timed> {
  const started = now();
  let retries = 0;
  for (;;) {
    const res = await send(req);
    if (res.status !== 404 || retries >= MAX_404_RETRIES) {
      return { status: res.status, ms: msSince(started), retries, body: res.body };
    }
    retries++;
  }
}

async function sequential(job: SequentialJob): Promise<SequentialResult> {
  let errors = 0;
  for (let i = 0; i < job.warmup; i++) {
    if ((await send(job.req)).status >= 300) errors++;
  }
  const latencies = new Array<number>(job.count);
  for (let i = 0; i < job.count; i++) {
    const started = now();
    const res = await send(job.req);
    latencies[i] = msSince(started);
    if (res.status >= 300) errors++;
  }
  return { latencies, errors };
}

async function run(job: ClientJob): Promise<ClientResult> {
  switch (job.kind) {
    case 'seq':
      return sequential(job);
    case 'one':
      return timed(job.req);
    case 'deploy-call': {
      const deploy = await timed(job.deploy);
      return { deploy, call: await timed(job.call) };
    }
  }
}

if (require.main === module) {
  process.on('message', (msg: { id: number; job: ClientJob }) => {
    run(msg.job).then(
      (result) => process.send!({ id: msg.id, result }),
      (e: unknown) => process.send!({ id: msg.id, error: String(e) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
