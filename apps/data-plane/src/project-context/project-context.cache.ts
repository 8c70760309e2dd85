import { ProjectContext } from '@baseplate/control-db';

export interface ProjectContextSource {
  read(ref: string): Promise<ProjectContext | null>;
}

export interface ProjectContextCacheOptions {
  /** How long an ACTIVE_HEALTHY project is served from memory (pub/sub usually clears it first). */
  ttlMs: number;
  /** Cap for missing and not-yet-active projects, so a project coming up is seen within ~1 s. */
  inactiveTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  value: ProjectContext | null;
  expiresAt: number;
}

const DEFAULT_INACTIVE_TTL_MS = 1000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Project contexts by ref, read from the control database. Concurrent misses for one ref
 * share a single read; an invalidation during a read keeps that (possibly stale) result
 * out of the cache.
 */
export class ProjectContextCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ProjectContext | null>>();
  private readonly inactiveTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly listeners: Array<(ref: string | null) => void> = [];

  constructor(
    private readonly source: ProjectContextSource,
    private readonly options: ProjectContextCacheOptions,
  ) {
    this.inactiveTtlMs = Math.min(options.inactiveTtlMs ?? DEFAULT_INACTIVE_TTL_MS, options.ttlMs);
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.now = options.now ?? Date.now;
  }

  get(ref: string): Promise<ProjectContext | null> {
    const hit = this.entries.get(ref);
    if (hit && hit.expiresAt > this.now()) return Promise.resolve(hit.value);
    const pending = this.loading.get(ref);
    if (pending) return pending;
    const load: Promise<ProjectContext | null> = this.source.read(ref).then(
      (value) => {
        if (this.loading.get(ref) === load) {
          this.loading.delete(ref);
          this.store(ref, value);
        }
        return value;
      },
      (e: unknown) => {
        if (this.loading.get(ref) === load) this.loading.delete(ref);
        throw e;
      },
    );
    this.loading.set(ref, load);
    return load;
  }

  invalidate(ref: string): void {
    this.entries.delete(ref);
    this.loading.delete(ref);
    this.notify(ref);
  }

  invalidateAll(): void {
    this.entries.clear();
    this.loading.clear();
    this.notify(null);
  }

  /**
   * Called after each invalidation (`null`: all projects), so what other services keep per
   * project (function processes) can follow the project's new state.
   */
  onInvalidate(listener: (ref: string | null) => void): void {
    this.listeners.push(listener);
  }

  private notify(ref: string | null): void {
    for (const listener of this.listeners) {
      try {
        listener(ref);
      } catch {
        // A listener's failure must not stop the invalidation itself.
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private store(ref: string, value: ProjectContext | null): void {
    const ttl = value?.status === 'ACTIVE_HEALTHY' ? this.options.ttlMs : this.inactiveTtlMs;
    this.entries.delete(ref);
    if (ttl <= 0) return;
    // Map order is insertion order: the first key is the least recently stored.
    while (this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(ref, { value, expiresAt: this.now() + ttl });
  }
}
