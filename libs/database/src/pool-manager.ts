import { Pool, PoolConfig } from 'pg';

export interface PoolManagerOptions {
  /** Connections per pool. */
  max: number;
  /** Pools kept open at once; the least recently used one closes first. */
  maxPools: number;
  /** A pool unused this long is closed. */
  idleMs: number;
}

const DRAIN_LIMIT_MS = 30_000;

/**
 * pg's Pool.end() never serves requests already queued in connect(): they would wait out
 * their connection timeout and fail. Let the queue empty first (bounded), then end.
 */
async function drainAndEnd(pool: Pool): Promise<void> {
  const deadline = Date.now() + DRAIN_LIMIT_MS;
  while (pool.waitingCount > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await pool.end().catch(() => undefined);
}

interface Entry {
  pool: Pool;
  lastUsed: number;
}

/**
 * Per-project pg pools, opened lazily, closed when idle and bounded in number, so
 * thousands of projects cost nothing while idle. Keys are chosen by the caller
 * (`<ref>` or `<ref>:<role>`); `closeMatching(ref)` closes every pool of a project.
 */
export class PoolManager {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: PoolManagerOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(options.idleMs, 10_000));
    this.sweeper.unref();
  }

  get(key: string, config: () => PoolConfig): Pool {
    const entry = this.entries.get(key);
    if (entry) {
      entry.lastUsed = Date.now();
      // Map order is insertion order: re-inserting keeps it least-recently-used first.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.pool;
    }
    while (this.entries.size >= this.options.maxPools) {
      const oldest = this.entries.keys().next().value as string;
      this.close(oldest);
    }
    const pool = new Pool({
      max: this.options.max,
      idleTimeoutMillis: this.options.idleMs,
      ...config(),
    });
    // An idle client losing its connection (database dropped, server restart) must not crash the process.
    pool.on('error', () => undefined);
    // Nor one that loses it while checked out between two queries (pg emits 'error' on the
    // client then, and the pool listens only to idle ones): the next query fails instead.
    pool.on('connect', (client) => client.on('error', () => undefined));
    this.entries.set(key, { pool, lastUsed: Date.now() });
    return pool;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Forgets the pool at once (new requests get a new one) and ends it once drained. */
  close(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    void drainAndEnd(entry.pool);
  }

  /** Closes every pool whose key is `prefix` or starts with `prefix:`. */
  closeMatching(prefix: string): void {
    for (const key of [...this.entries.keys()]) {
      if (key === prefix || key.startsWith(`${prefix}:`)) this.close(key);
    }
  }

  sweep(now = Date.now()): void {
    for (const [key, entry] of this.entries) {
      if (
        now - entry.lastUsed >= this.options.idleMs &&
        entry.pool.waitingCount === 0 &&
        entry.pool.idleCount === entry.pool.totalCount
      ) {
        this.close(key);
      }
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const pools = [...this.entries.values()].map((e) => e.pool);
    this.entries.clear();
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  }
}
