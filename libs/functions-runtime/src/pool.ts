import type { InvokeOutcome } from './runtime';

/** One worker (process or container) running one function version, as the pool drives it. */
export interface PoolWorker {
  /** Calls ever sent to it. */
  readonly calls: number;
  /** stop() was called or it died: it takes no more calls (its exit may still be pending). */
  readonly stopped: boolean;
  /** Resolves once the code is loaded; rejects (FunctionLoadError or Error) otherwise. */
  start(): Promise<void>;
  /** Never rejects: the handler's and the worker's failures are outcomes. */
  invoke(payloadJson: string): Promise<InvokeOutcome>;
  /** Kills it now; calls in flight end as `crashed` with the reason. Idempotent. */
  stop(reason: string, abnormal?: boolean): void;
}

/** How a worker tells its pool about its life. */
export interface WorkerHooks {
  /** Called once, when the worker is gone; `abnormal` for crashes and timeouts. */
  exited(abnormal: boolean): void;
  /** The worker still works but should be replaced (an uncaught exception in it). */
  unhealthy(): void;
}

export type WorkerFactory = (hooks: WorkerHooks) => PoolWorker;

export interface PoolOptions {
  maxWorkers: number;
  idleMs: number;
  recycleAfter: number;
  maxConcurrency: number;
}

type State = 'starting' | 'ready' | 'retiring' | 'gone';
interface Entry {
  worker: PoolWorker;
  state: State;
  started: Promise<void>;
  lastUsed: number;
  /** Calls routed to it and not answered yet (counted before they reach the worker). */
  busy: number;
}

/** Respawning a crashed worker ahead of the next call stops after this many crashes per window. */
const CRASH_WINDOW_MS = 10_000;
const CRASHES_PER_WINDOW = 3;
const CLOSE_WAIT_MS = 3_000;

/**
 * The workers of one function version: one warm worker, another started when every ready one
 * is busy (up to maxWorkers), idle ones stopped after idleMs, each replaced after recycleAfter
 * calls or when it crashes, and at most maxConcurrency calls in flight (more are `busy`).
 */
export class FunctionPool {
  private readonly entries: Entry[] = [];
  private readonly crashes: number[] = [];
  private readonly emptyWaiters: Array<() => void> = [];
  private active = 0;
  private accepting = true;
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;
  /** Called each time the last worker is gone. */
  onEmpty: () => void = () => undefined;

  constructor(
    private readonly options: PoolOptions,
    private readonly factory: WorkerFactory,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(100, Math.floor(options.idleMs / 4)));
    this.sweeper.unref();
  }

  /** Workers alive (starting, serving or finishing their last calls). */
  get size(): number {
    return this.entries.length;
  }

  /** Starts the first worker and waits until it has loaded the code (deploy). */
  async warm(): Promise<void> {
    await this.spawn().started;
  }

  async invoke(payloadJson: string): Promise<InvokeOutcome> {
    const started = Date.now();
    const end = (o: InvokeOutcome): InvokeOutcome => ({ ...o, durationMs: Date.now() - started });
    if (!this.accepting) {
      return end({
        status: 'crashed',
        message: 'The function was stopped',
        durationMs: 0,
        logs: [],
      });
    }
    if (this.active >= this.options.maxConcurrency) {
      return end({ status: 'busy', durationMs: 0, logs: [] });
    }
    this.active++;
    try {
      let entry: Entry;
      try {
        entry = await this.acquire();
      } catch (e) {
        const message = `The function's worker could not start: ${(e as Error).message}`;
        return end({ status: 'crashed', message, durationMs: 0, logs: [] });
      }
      entry.lastUsed = Date.now();
      let outcome: InvokeOutcome;
      try {
        const pending = entry.worker.invoke(payloadJson);
        if (entry.worker.calls >= this.options.recycleAfter) this.retire(entry, true);
        outcome = await pending;
      } finally {
        entry.busy--;
      }
      entry.lastUsed = Date.now();
      this.stopIfRetired(entry);
      return end(outcome);
    } finally {
      this.active--;
    }
  }

  /** No new calls; each worker stops once its calls are done (a newer version took over). */
  drain(): void {
    this.accepting = false;
    clearInterval(this.sweeper);
    for (const e of [...this.entries]) this.retire(e, false);
  }

  /** Stops every worker now and waits (a few seconds at most) until they are gone. */
  async close(): Promise<void> {
    this.accepting = false;
    this.closed = true;
    clearInterval(this.sweeper);
    for (const e of [...this.entries]) e.worker.stop('The function was stopped');
    if (this.entries.length === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      this.emptyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private stopIfRetired(entry: Entry): void {
    if (entry.state === 'retiring' && entry.busy === 0) entry.worker.stop('recycled');
  }

  /** A worker for one call, counted as busy from here (so concurrent arrivals spread out). */
  private async acquire(): Promise<Entry> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry = this.pick();
      entry.busy++;
      if (entry.state !== 'starting') return entry;
      try {
        await entry.started;
      } catch (e) {
        entry.busy--;
        throw e;
      }
      const state = entry.state as State; // changed while awaiting
      if (state !== 'gone' && !entry.worker.stopped) return entry;
      entry.busy--;
    }
    throw new Error('workers kept dying while starting');
  }

  /** The least busy ready worker; another starts when all are busy (one start at a time). */
  private pick(): Entry {
    const live = this.entries.filter(
      (e) => (e.state === 'starting' || e.state === 'ready') && !e.worker.stopped,
    );
    let best: Entry | undefined;
    for (const e of live) {
      if (e.state === 'ready' && (!best || e.busy < best.busy)) best = e;
    }
    let starting = live.find((e) => e.state === 'starting');
    const allBusy = !best || best.busy > 0;
    if (allBusy && !starting && live.length < this.options.maxWorkers) starting = this.spawn();
    return best ?? starting!;
  }

  private spawn(): Entry {
    const entry = { state: 'starting', lastUsed: Date.now(), busy: 0 } as Entry;
    try {
      entry.worker = this.factory({
        exited: (abnormal) => this.onExit(entry, abnormal),
        unhealthy: () => this.retire(entry, true),
      });
    } catch (e) {
      entry.state = 'gone';
      entry.started = Promise.reject(e as Error);
      entry.started.catch(() => undefined);
      return entry;
    }
    this.entries.push(entry);
    entry.started = entry.worker.start().then(
      () => {
        if (entry.state === 'starting') entry.state = 'ready';
        if (this.closed) entry.worker.stop('The function was stopped');
        // Retired while starting: the calls that waited for it still run first.
        else setImmediate(() => this.stopIfRetired(entry));
      },
      (e: unknown) => {
        entry.worker.stop('start failed');
        throw e;
      },
    );
    entry.started.catch(() => undefined); // awaited by the caller that needed it, if any
    return entry;
  }

  /** No new calls to this worker; it stops when idle. A replacement starts if none is left. */
  private retire(entry: Entry, replace: boolean): void {
    if (entry.state === 'gone' || entry.state === 'retiring') return;
    const wasStarting = entry.state === 'starting';
    entry.state = 'retiring';
    if (entry.busy === 0 && !wasStarting) entry.worker.stop('recycled');
    if (replace) this.prewarm();
  }

  private onExit(entry: Entry, abnormal: boolean): void {
    const wasReady = entry.state === 'ready' || entry.state === 'retiring';
    entry.state = 'gone';
    const i = this.entries.indexOf(entry);
    if (i >= 0) this.entries.splice(i, 1);
    if (this.entries.length === 0) {
      for (const w of this.emptyWaiters.splice(0)) w();
      this.onEmpty();
    }
    if (!abnormal || !wasReady) return;
    const now = Date.now();
    this.crashes.push(now);
    while (this.crashes.length > 0 && this.crashes[0]! < now - CRASH_WINDOW_MS)
      this.crashes.shift();
    if (this.crashes.length <= CRASHES_PER_WINDOW) this.prewarm();
  }

  /** Keeps one worker warm after a crash or a recycle, so the next call is not a cold start. */
  private prewarm(): void {
    if (!this.accepting) return;
    const live = (e: Entry) => (e.state === 'starting' || e.state === 'ready') && !e.worker.stopped;
    if (this.entries.some(live)) return;
    this.spawn();
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const e of [...this.entries]) {
      if (e.state === 'ready' && e.busy === 0 && e.lastUsed <= cutoff) {
        e.state = 'retiring';
        e.worker.stop('idle');
      }
    }
  }
}
