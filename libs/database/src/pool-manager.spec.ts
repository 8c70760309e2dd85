import { PoolManager } from './pool-manager';

// Pools connect lazily, so these tests never open a connection.
const config = () => ({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });

describe('PoolManager', () => {
  let manager: PoolManager;
  afterEach(() => manager.closeAll());

  it('reuses a pool per key and evicts the least recently used beyond the bound', () => {
    manager = new PoolManager({ max: 2, maxPools: 2, idleMs: 60_000 });
    const a = manager.get('a', config);
    manager.get('b', config);
    expect(manager.get('a', config)).toBe(a); // touches a, so b is now the oldest
    manager.get('c', config);
    expect(manager.size).toBe(2);
    expect(manager.has('a')).toBe(true);
    expect(manager.has('b')).toBe(false);
    expect(manager.has('c')).toBe(true);
  });

  it('closes idle pools on sweep and every pool of a project on closeMatching', () => {
    manager = new PoolManager({ max: 2, maxPools: 10, idleMs: 1000 });
    manager.get('p1', config);
    manager.get('p1:admin', config);
    manager.get('p10', config);
    manager.closeMatching('p1');
    expect(manager.has('p1')).toBe(false);
    expect(manager.has('p1:admin')).toBe(false);
    expect(manager.has('p10')).toBe(true);
    manager.sweep(Date.now() + 5000);
    expect(manager.size).toBe(0);
  });
});
