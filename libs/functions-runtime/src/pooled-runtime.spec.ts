import type { PoolOptions, PoolWorker, WorkerHooks } from './pool';
import {
  FunctionNotDeployedError,
  PooledFunctionRuntime,
  type WorkerDriver,
} from './pooled-runtime';
import { type DeployInput, FunctionLoadError, type InvokeOutcome } from './runtime';

/** Answers with its code; loads slowly when asked; fails to load code 'bad'. */
class FakeWorker implements PoolWorker {
  calls = 0;
  stopped = false;
  private readonly name: string;

  constructor(
    private readonly driver: FakeDriver,
    private readonly input: DeployInput,
    private readonly hooks: WorkerHooks,
  ) {
    this.name = `${input.slug}@${input.version}`;
  }

  async start(): Promise<void> {
    this.driver.started.push(this.name);
    await new Promise((r) => setTimeout(r, this.driver.loadDelayMs));
    if (this.input.code === 'bad') throw new FunctionLoadError('no handler');
  }

  async invoke(payloadJson: string): Promise<InvokeOutcome> {
    this.calls++;
    return { status: 'ok', value: [this.input.code, payloadJson], durationMs: 0, logs: [] };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.driver.stopped.push(this.name);
    setImmediate(() => this.hooks.exited(false));
  }
}

class FakeDriver implements WorkerDriver {
  readonly started: string[] = [];
  readonly stopped: string[] = [];
  loadDelayMs = 0;
  closed = false;

  createWorker(input: DeployInput, hooks: WorkerHooks): PoolWorker {
    return new FakeWorker(this, input, hooks);
  }

  poolOptions(input: DeployInput): PoolOptions {
    return {
      maxWorkers: 1,
      idleMs: 60_000,
      recycleAfter: 100,
      maxConcurrency: input.limits.maxConcurrency,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

const LIMITS = { timeoutMs: 1000, memoryMb: 128, maxPayloadBytes: 20, maxConcurrency: 2 };
const input = (slug: string, version: number, code = `v${version}`): DeployInput => ({
  ref: 'abcdefghijklmnopqrst',
  slug,
  version,
  code,
  limits: LIMITS,
});

describe('PooledFunctionRuntime', () => {
  let driver: FakeDriver;
  let runtime: PooledFunctionRuntime;

  beforeEach(() => {
    driver = new FakeDriver();
    runtime = new PooledFunctionRuntime(driver);
  });
  afterEach(() => runtime.close());

  it('deploys, invokes with the payload as JSON, and refuses oversized payloads', async () => {
    const fn = input('a', 1);
    await runtime.deploy(fn);
    expect(runtime.has(fn)).toBe(true);
    expect(await runtime.invoke(fn, { x: 1 })).toMatchObject({ value: ['v1', '{"x":1}'] });
    expect(await runtime.invoke(fn, 'y'.repeat(50))).toMatchObject({ status: 'error' });
    expect(runtime.stats()).toEqual({
      workers: { 'abcdefghijklmnopqrst/a@1': 1 },
      invocations: 2,
    });
  });

  it('throws for a version that is not deployed', async () => {
    await runtime.deploy(input('a', 1));
    await expect(runtime.invoke(input('a', 2), {})).rejects.toBeInstanceOf(
      FunctionNotDeployedError,
    );
    await expect(runtime.invoke(input('b', 1), {})).rejects.toThrow('not deployed');
  });

  it('loads a version once when deployed twice at the same time, and again is a no-op', async () => {
    driver.loadDelayMs = 20;
    await Promise.all([runtime.deploy(input('a', 1)), runtime.deploy(input('a', 1))]);
    await runtime.deploy(input('a', 1));
    expect(driver.started).toEqual(['a@1']);
  });

  it('replaces the previous version only once the new one loaded', async () => {
    await runtime.deploy(input('a', 1));
    await expect(runtime.deploy(input('a', 2, 'bad'))).rejects.toBeInstanceOf(FunctionLoadError);
    expect(runtime.has(input('a', 1))).toBe(true);
    await runtime.deploy(input('a', 3));
    expect(runtime.has(input('a', 1))).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(driver.stopped).toEqual(['a@2', 'a@1']);
    expect(runtime.stats().workers).toEqual({ 'abcdefghijklmnopqrst/a@3': 1 });
  });

  it('remove() stops one function or a whole project, and voids a deploy in progress', async () => {
    await runtime.deploy(input('a', 1));
    await runtime.deploy(input('b', 1));
    await runtime.remove('abcdefghijklmnopqrst', 'a');
    expect(runtime.has(input('a', 1))).toBe(false);
    expect(runtime.has(input('b', 1))).toBe(true);
    driver.loadDelayMs = 30;
    const loading = runtime.deploy(input('c', 1));
    await runtime.remove('abcdefghijklmnopqrst');
    await loading;
    expect(runtime.has(input('b', 1))).toBe(false);
    expect(runtime.has(input('c', 1))).toBe(false);
    expect(runtime.stats().workers).toEqual({});
  });

  it('refuses malformed references and deploys after close()', async () => {
    await expect(runtime.deploy({ ...input('a', 1), slug: '../x' })).rejects.toThrow('Invalid');
    await runtime.close();
    expect(driver.closed).toBe(true);
    await expect(runtime.deploy(input('a', 1))).rejects.toThrow('closed');
  });
});
