import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createProcessRuntime,
  type FunctionLimits,
  type FunctionRef,
  type FunctionRuntime,
  type InvokeOutcome,
  type ProcessRuntimeOptions,
} from '@baseplate/functions-runtime';

export const LIMITS: FunctionLimits = {
  timeoutMs: 2_000,
  memoryMb: 128,
  maxPayloadBytes: 64 * 1024,
  maxConcurrency: 10,
};

export const FUNCTIONS_UID = 65534;

export function processRuntime(options: Partial<ProcessRuntimeOptions> = {}): FunctionRuntime {
  return createProcessRuntime({
    uid: FUNCTIONS_UID,
    maxWorkers: 2,
    idleMs: 60_000,
    recycleAfter: 10_000,
    prlimitPath: '/usr/bin/prlimit',
    ...options,
  });
}

/** Deploys code as the next version of `slug` in project `ref` and returns its reference. */
export class Deployer {
  private version = 0;

  constructor(
    private readonly runtime: FunctionRuntime,
    readonly ref = 'abcdefghijklmnopqrst',
  ) {}

  async deploy(
    slug: string,
    code: string,
    limits: Partial<FunctionLimits> = {},
  ): Promise<FunctionRef> {
    const fn = { ref: this.ref, slug, version: ++this.version };
    await this.runtime.deploy({ ...fn, code, limits: { ...LIMITS, ...limits } });
    return fn;
  }
}

/** The value of an ok outcome; fails the test with the outcome otherwise. */
export function okValue(o: InvokeOutcome): unknown {
  if (o.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(o)}`);
  return o.value;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A local HTTP server a handler can fetch. */
export async function localServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ hello: 'from the platform', path: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
