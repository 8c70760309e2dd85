import { PoolManager } from '@baseplate/database';

describe('PoolManager against PostgreSQL', () => {
  it('serves requests already queued on a pool it closes', async () => {
    const manager = new PoolManager({ max: 1, maxPools: 10, idleMs: 60_000 });
    const pool = manager.get('p', () => ({
      connectionString: process.env.BASEPLATE_TEST_ADMIN_URL,
    }));
    try {
      const busy = pool.query('SELECT pg_sleep(0.2)');
      // Queued behind the only connection when the pool is closed (eviction, invalidation).
      const queued = [1, 2, 3].map((n) => pool.query('SELECT $1::int AS n', [n]));
      manager.close('p');
      expect(manager.has('p')).toBe(false);
      await busy;
      const answers = await Promise.all(queued);
      expect(answers.map((r) => r.rows[0].n)).toEqual([1, 2, 3]);
    } finally {
      await manager.closeAll();
    }
  });
});
