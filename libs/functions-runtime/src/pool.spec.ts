import { FunctionPool, type PoolOptions, type PoolWorker, type WorkerHooks } from './pool';
import type { InvokeOutcome } from './runtime';

/** A worker whose calls the test answers by hand. */
class FakeWorker implements PoolWorker {
  calls = 0;
  stopped = false;
  stopReason: string | undefined;
  readonly open: Array<(o: InvokeOutcome) => void> = [];
  private startSettle!: { resolve(): void; reject(e: Error): void };
  readonly started = new Promise<void>((resolve, reject) => {
    this.startSettle = { resolve, reject };
  });

  constructor(
    readonly hooks: WorkerHooks,
    readonly id: number,
    autoStart: boolean,
  ) {
    if (autoStart) this.startSettle.resolve();
  }

  start(): Promise<void> {
    return this.started;
  }

  ready(): void {
    this.startSettle.resolve();
  }

  fail(e: Error): void {
    this.startSettle.reject(e);
  }

  invoke(payloadJson: string): Promise<InvokeOutcome> {
    this.calls++;
    if (this.stopped) return Promise.resolve(outcome('crashed', payloadJson));
    return new Promise((resolve) => this.open.push(resolve));
  }

  /** Answers the oldest open call. */
  answer(value: unknown = this.id): void {
    this.open.shift()!({ status: 'ok', value, durationMs: 1, logs: [] });
  }

  stop(reason: string, abnormal = false): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopReason = reason;
    for (const r of this.open.splice(0)) r(outcome('crashed', reason));
    setImmediate(() => this.hooks.exited(abnormal));
  }

  /** Dies on its own (memory, process.exit). */
  crash(): void {
    this.stop('crashed', true);
  }
}

function outcome(status: 'crashed', message: string): InvokeOutcome {
  return { status, message, durationMs: 0, logs: [] };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('FunctionPool', () => {
  let workers: FakeWorker[];
  let autoStart: boolean;
  let pool: FunctionPool;

  function makePool(options: Partial<PoolOptions> = {}): FunctionPool {
    return new FunctionPool(
      { maxWorkers: 2, idleMs: 60_000, recycleAfter: 1_000, maxConcurrency: 10, ...options },
      (hooks) => {
        const w = new FakeWorker(hooks, workers.length + 1, autoStart);
        workers.push(w);
        return w;
      },
    );
  }

  beforeEach(() => {
    workers = [];
    autoStart = true;
  });
  afterEach(() => pool?.close());

  it('warms one worker and routes calls to it', async () => {
    pool = makePool();
    await pool.warm();
    const call = pool.invoke('{}');
    await tick();
    workers[0]!.answer('v');
    expect(await call).toMatchObject({ status: 'ok', value: 'v' });
    expect(workers).toHaveLength(1);
  });

  it('starts another worker when calls arrive together, never more than maxWorkers', async () => {
    pool = makePool({ maxWorkers: 2 });
    await pool.warm();
    const calls = [1, 2, 3, 4].map(() => pool.invoke('{}'));
    await tick();
    // The second worker starts, but these calls do not wait for a cold start.
    expect(workers).toHaveLength(2);
    expect(workers[0]!.open).toHaveLength(4);
    const more = [1, 2, 3, 4].map(() => pool.invoke('{}'));
    await tick();
    expect(workers).toHaveLength(2);
    expect(workers[1]!.open.length).toBeGreaterThan(0);
    for (const w of workers) while (w.open.length) w.answer();
    await Promise.all([...calls, ...more]);
    expect(pool.size).toBe(2);
  });

  it('answers busy past maxConcurrency, counting calls that wait for a start', async () => {
    autoStart = false;
    pool = makePool({ maxConcurrency: 2 });
    const a = pool.invoke('{}');
    const b = pool.invoke('{}');
    expect(await pool.invoke('{}')).toMatchObject({ status: 'busy' });
    workers[0]!.ready();
    await tick();
    while (workers[0]!.open.length) workers[0]!.answer();
    expect((await a).status).toBe('ok');
    expect((await b).status).toBe('ok');
  });

  it('reports a worker that cannot start as crashed', async () => {
    autoStart = false;
    pool = makePool();
    const call = pool.invoke('{}');
    workers[0]!.fail(new Error('no node'));
    expect(await call).toMatchObject({
      status: 'crashed',
      message: expect.stringContaining('no node'),
    });
  });

  it('recycles a worker after recycleAfter calls, once its calls are done', async () => {
    pool = makePool({ recycleAfter: 2 });
    await pool.warm();
    const first = workers[0]!;
    const calls = [pool.invoke('{}'), pool.invoke('{}')];
    await tick();
    expect(first.stopped).toBe(false);
    while (first.open.length) first.answer();
    await Promise.all(calls);
    expect(first.stopReason).toBe('recycled');
    expect(workers).toHaveLength(2); // the replacement started ahead of the next call
    const next = pool.invoke('{}');
    await tick();
    workers[1]!.answer('fresh');
    expect(await next).toMatchObject({ value: 'fresh' });
  });

  it('does not route to a worker that was stopped but has not exited yet', async () => {
    pool = makePool({ maxWorkers: 1 });
    await pool.warm();
    workers[0]!.stopped = true; // killed after a timeout; the exit event is still to come
    const call = pool.invoke('{}');
    await tick();
    expect(workers).toHaveLength(2);
    workers[1]!.answer('replacement');
    expect(await call).toMatchObject({ value: 'replacement' });
    workers[0]!.hooks.exited(true);
    expect(pool.size).toBe(1);
  });

  it('respawns after a crash, but stops respawning ahead of calls in a crash loop', async () => {
    pool = makePool();
    await pool.warm();
    for (let i = 0; i < 3; i++) {
      workers[workers.length - 1]!.crash();
      await tick();
      await tick();
      expect(workers).toHaveLength(i + 2);
    }
    workers[workers.length - 1]!.crash();
    await tick();
    await tick();
    expect(workers).toHaveLength(4);
    expect(pool.size).toBe(0);
  });

  it('stops workers idle for idleMs', async () => {
    pool = makePool({ idleMs: 100 });
    await pool.warm();
    await new Promise((r) => setTimeout(r, 350));
    expect(workers[0]!.stopReason).toBe('idle');
    await tick();
    expect(pool.size).toBe(0);
  });

  it('drain() lets calls in flight finish, then stops the workers', async () => {
    pool = makePool();
    await pool.warm();
    const call = pool.invoke('{}');
    await tick();
    pool.drain();
    expect(workers[0]!.stopped).toBe(false);
    expect(await pool.invoke('{}')).toMatchObject({ status: 'crashed' });
    workers[0]!.answer('finished');
    expect(await call).toMatchObject({ value: 'finished' });
    expect(workers[0]!.stopped).toBe(true);
  });

  it('close() stops every worker and waits for their exit', async () => {
    pool = makePool();
    await pool.warm();
    const call = pool.invoke('{}');
    await tick();
    await pool.close();
    expect(pool.size).toBe(0);
    expect(await call).toMatchObject({ status: 'crashed' });
  });
});
