import type { SchemaCache } from '../schema/types';

interface Entry {
  version: number;
  cache: Promise<SchemaCache>;
  /** Set once the load finished: lets the read fast path plan without waiting. */
  loaded?: SchemaCache;
}

/**
 * Schema caches by project, each tagged with the `_platform.schema_version` it was loaded at.
 * A request that reads another version reloads (concurrent requests share one load); the
 * least recently used projects are dropped beyond `maxEntries`.
 */
export class SchemaCacheStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 500) {}

  get(key: string, version: number, load: () => Promise<SchemaCache>): Promise<SchemaCache> {
    const entry = this.entries.get(key);
    if (entry && entry.version === version) {
      // Refresh recency: Map iteration order is insertion order.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.cache;
    }
    const cache = load();
    const fresh: Entry = { version, cache };
    this.entries.delete(key);
    this.entries.set(key, fresh);
    cache.then(
      (loaded) => {
        fresh.loaded = loaded;
      },
      () => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      },
    );
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return cache;
  }

  /** The loaded cache of `key`, if any, whatever its version (the caller checks it). */
  peek(key: string): SchemaCache | undefined {
    return this.entries.get(key)?.loaded;
  }

  /** Drops every cache whose key starts with `prefix` (a project ref). */
  invalidate(prefix: string): void {
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(prefix)) this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
