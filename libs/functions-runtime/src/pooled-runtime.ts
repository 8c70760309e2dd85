import { encodePayload } from './protocol';
import { FunctionPool, type PoolOptions, type PoolWorker, type WorkerHooks } from './pool';
import type {
  DeployInput,
  FunctionRef,
  FunctionRuntime,
  InvokeOutcome,
  RuntimeStats,
} from './runtime';

/** What a driver (processes, containers) provides to the pooled runtime. */
export interface WorkerDriver {
  /** A worker for this version; `start()` is called by the pool. */
  createWorker(input: DeployInput, hooks: WorkerHooks): PoolWorker;
  /** Pool sizing for this version (the driver may cap the worker count). */
  poolOptions(input: DeployInput): PoolOptions;
  /** Releases what the driver holds besides workers (runner file, containers). */
  close(): Promise<void>;
}

/** invoke() of a version that is not deployed here (never, replaced, or removed). */
export class FunctionNotDeployedError extends Error {
  constructor(fn: FunctionRef) {
    super(`${label(fn)} is not deployed in this runtime`);
    this.name = 'FunctionNotDeployedError';
  }
}

interface Deployed {
  version: number;
  pool: FunctionPool;
  maxPayloadBytes: number;
}

const REF = /^[a-z0-9]{1,63}$/;
const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

function label(fn: FunctionRef): string {
  return `${fn.ref}/${fn.slug}@${fn.version}`;
}

/**
 * FunctionRuntime over a driver: one FunctionPool per deployed version, a deploy loads the new
 * version before it replaces the old one (whose calls in flight finish), remove and close stop
 * workers and wait for them.
 */
export class PooledFunctionRuntime implements FunctionRuntime {
  private readonly deployed = new Map<string, Deployed>();
  private readonly deploying = new Map<string, Promise<void>>();
  /** Every pool with workers or able to get some, for close() and stats(). */
  private readonly pools = new Map<FunctionPool, string>();
  /** Bumped by remove(): a deploy that was loading meanwhile is thrown away. */
  private readonly generations = new Map<string, number>();
  private invocations = 0;
  private closed = false;

  constructor(private readonly driver: WorkerDriver) {}

  async deploy(input: DeployInput): Promise<void> {
    if (this.closed) throw new Error('The function runtime is closed');
    if (!REF.test(input.ref) || !SLUG.test(input.slug) || !(input.version >= 1)) {
      throw new Error(`Invalid function reference ${label(input)}`);
    }
    const key = `${input.ref}/${input.slug}`;
    if (this.deployed.get(key)?.version === input.version) return;
    const id = label(input);
    let pending = this.deploying.get(id);
    if (!pending) {
      pending = this.load(key, input).finally(() => this.deploying.delete(id));
      this.deploying.set(id, pending);
    }
    return pending;
  }

  async invoke(fn: FunctionRef, payload: unknown): Promise<InvokeOutcome> {
    const entry = this.deployed.get(`${fn.ref}/${fn.slug}`);
    if (!entry || entry.version !== fn.version) throw new FunctionNotDeployedError(fn);
    this.invocations++;
    const encoded = encodePayload(payload, entry.maxPayloadBytes);
    if ('error' in encoded) {
      return { status: 'error', message: encoded.error, durationMs: 0, logs: [] };
    }
    return entry.pool.invoke(encoded.json);
  }

  has(fn: FunctionRef): boolean {
    return this.deployed.get(`${fn.ref}/${fn.slug}`)?.version === fn.version;
  }

  async remove(ref: string, slug?: string): Promise<void> {
    const scope = slug === undefined ? ref : `${ref}/${slug}`;
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.deployed) {
      if (key === scope || (slug === undefined && key.startsWith(`${ref}/`))) {
        this.deployed.delete(key);
        closing.push(this.closePool(entry.pool));
      }
    }
    for (const [pool, name] of this.pools) {
      if (name.startsWith(`${scope}${slug === undefined ? '/' : '@'}`)) {
        closing.push(this.closePool(pool));
      }
    }
    await Promise.all(closing);
  }

  stats(): RuntimeStats {
    const workers: Record<string, number> = {};
    for (const [pool, name] of this.pools) workers[name] = (workers[name] ?? 0) + pool.size;
    return { workers, invocations: this.invocations };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.deployed.clear();
    await Promise.all([...this.pools.keys()].map((p) => this.closePool(p)));
    await this.driver.close();
  }

  private async load(key: string, input: DeployInput): Promise<void> {
    const generation = this.generation(input.ref, key);
    const name = label(input);
    const pool = new FunctionPool(this.driver.poolOptions(input), (hooks) =>
      this.driver.createWorker(input, hooks),
    );
    pool.onEmpty = () => {
      if (this.deployed.get(key)?.pool !== pool) this.pools.delete(pool);
    };
    this.pools.set(pool, name);
    const discarded = () => this.closed || this.generation(input.ref, key) !== generation;
    try {
      await pool.warm();
    } catch (e) {
      await this.closePool(pool);
      if (discarded()) return; // removed (or closed) while loading: nothing to report
      throw e;
    }
    if (discarded()) return this.closePool(pool);
    const previous = this.deployed.get(key);
    this.deployed.set(key, {
      version: input.version,
      pool,
      maxPayloadBytes: input.limits.maxPayloadBytes,
    });
    if (previous) {
      previous.pool.drain();
      if (previous.pool.size === 0) this.pools.delete(previous.pool);
    }
  }

  private generation(ref: string, key: string): string {
    return `${this.generations.get(ref) ?? 0}:${this.generations.get(key) ?? 0}`;
  }

  private async closePool(pool: FunctionPool): Promise<void> {
    await pool.close();
    this.pools.delete(pool);
  }
}
