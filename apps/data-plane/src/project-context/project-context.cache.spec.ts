import { FUNCTION_DEFAULTS, ProjectContext, ProjectStatus } from '@baseplate/control-db';
import { ProjectContextCache, ProjectContextSource } from './project-context.cache';

const REF = 'aaaaaaaaaaaaaaaaaaaa';

const project = (status: ProjectStatus = 'ACTIVE_HEALTHY', keysVersion = 1): ProjectContext => ({
  ref: REF,
  status,
  dbName: `proj_${REF}`,
  cluster: 'default',
  jwtSecret: 's',
  keysVersion,
  rest: { schemas: ['public'], extraSearchPath: ['public'], maxRows: 1000 },
  auth: {
    siteUrl: 'http://localhost:3000',
    uriAllowList: [],
    mailerAutoconfirm: false,
    jwtExp: 3600,
    passwordMinLength: 6,
  },
  functions: { limits: FUNCTION_DEFAULTS, deployed: {} },
});

/** A source whose reads resolve when the test says so, counting them. */
class ManualSource implements ProjectContextSource {
  reads = 0;
  private pending: ((value: ProjectContext | null) => void)[] = [];
  read(): Promise<ProjectContext | null> {
    this.reads++;
    return new Promise((resolve) => this.pending.push(resolve));
  }
  resolveAll(value: ProjectContext | null): void {
    for (const resolve of this.pending.splice(0)) resolve(value);
  }
  /** Resolves the n-th read issued (0-based), leaving the others pending. */
  resolveRead(n: number, value: ProjectContext | null): void {
    this.pending[n]!(value);
  }
}

const instantSource = (value: () => ProjectContext | null) => {
  const source = { reads: 0, read: async () => (source.reads++, value()) };
  return source;
};

describe('ProjectContextCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000));

  it('shares one read between concurrent misses', async () => {
    const source = new ManualSource();
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
    const all = Promise.all([cache.get(REF), cache.get(REF), cache.get(REF)]);
    source.resolveAll(project());
    expect(await all).toEqual([project(), project(), project()]);
    expect(source.reads).toBe(1);
  });

  it('serves an active project for the TTL, then reads again', async () => {
    const source = instantSource(() => project());
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
    await cache.get(REF);
    now += 59_999;
    await cache.get(REF);
    expect(source.reads).toBe(1);
    now += 1;
    await cache.get(REF);
    expect(source.reads).toBe(2);
  });

  it.each([['COMING_UP'], ['GOING_DOWN'], ['INIT_FAILED'], [null]] as const)(
    'keeps %s for one second at most',
    async (status) => {
      const source = instantSource(() => (status ? project(status) : null));
      const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
      await cache.get(REF);
      now += 999;
      await cache.get(REF);
      expect(source.reads).toBe(1);
      now += 1;
      await cache.get(REF);
      expect(source.reads).toBe(2);
    },
  );

  it('drops a ref on invalidation, and everything on invalidateAll', async () => {
    let version = 1;
    const source = instantSource(() => project('ACTIVE_HEALTHY', version));
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
    await cache.get(REF);
    version = 2;
    expect((await cache.get(REF))?.keysVersion).toBe(1);
    cache.invalidate(REF);
    expect((await cache.get(REF))?.keysVersion).toBe(2);
    version = 3;
    cache.invalidateAll();
    expect((await cache.get(REF))?.keysVersion).toBe(3);
  });

  it('does not store a read that an invalidation overtook', async () => {
    const source = new ManualSource();
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
    const stale = cache.get(REF);
    cache.invalidate(REF);
    const fresh = cache.get(REF); // a request after the invalidation reads again
    expect(source.reads).toBe(2);
    // The fresh read lands first, the stale one (begun before the rotation) after it.
    source.resolveRead(1, project('ACTIVE_HEALTHY', 2));
    source.resolveRead(0, project('ACTIVE_HEALTHY', 1));
    expect((await fresh)?.keysVersion).toBe(2);
    expect((await stale)?.keysVersion).toBe(1);
    expect((await cache.get(REF))?.keysVersion).toBe(2);
    expect(source.reads).toBe(2);
  });

  it('never caches a failed read', async () => {
    let fail = true;
    const source = {
      reads: 0,
      read: async () => {
        source.reads++;
        if (fail) throw new Error('control database down');
        return project();
      },
    };
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, now: clock });
    await expect(cache.get(REF)).rejects.toThrow('control database down');
    fail = false;
    await expect(cache.get(REF)).resolves.toEqual(project());
    expect(source.reads).toBe(2);
  });

  it('caches nothing with a TTL of 0, but still shares concurrent reads', async () => {
    const source = new ManualSource();
    const cache = new ProjectContextCache(source, { ttlMs: 0, now: clock });
    const both = Promise.all([cache.get(REF), cache.get(REF)]);
    source.resolveAll(project());
    await both;
    expect(source.reads).toBe(1);
    expect(cache.size).toBe(0);
  });

  it('evicts the oldest entry beyond maxEntries', async () => {
    const source = { read: async (ref: string) => ({ ...project(), ref }) };
    const cache = new ProjectContextCache(source, { ttlMs: 60_000, maxEntries: 2, now: clock });
    await cache.get('r1');
    await cache.get('r2');
    await cache.get('r3');
    expect(cache.size).toBe(2);
  });
});
