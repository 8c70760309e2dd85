import type { PinoLogger } from 'nestjs-pino';
import { testConfig } from '@baseplate/testing';
import { AuthRateLimiter } from '../../../apps/data-plane/src/auth/rate-limiter';

/** The auth rate limiter's counting against a real Redis, and failing open without one. */
describe('AuthRateLimiter', () => {
  const warnings: unknown[] = [];
  const logger = { warn: (o: unknown) => warnings.push(o) } as unknown as PinoLogger;
  const limiterWith = (overrides: Record<string, string>) =>
    new AuthRateLimiter(testConfig(overrides), logger);
  const limiter = limiterWith({ AUTH_RATE_LIMIT_PER_MINUTE: '2' });
  afterAll(() => limiter.onModuleDestroy());

  it('counts per key within one window and refuses the hit over the limit with Retry-After', async () => {
    await limiter.hit('ref-a', 'token', ['ip:1', 'email:a']);
    await limiter.hit('ref-a', 'token', ['ip:1', 'email:a']);
    // Over on email:a, from another address.
    const third = await limiter.hit('ref-a', 'token', ['ip:2', 'email:a']).catch((e) => e);
    expect(third).toMatchObject({ status: 429, code: 'over_request_rate_limit' });
    const retryAfter = Number(third.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The third hit was counted on ip:2 too, but ip:2 alone is still within its limit.
    await limiter.hit('ref-a', 'token', ['ip:2']);
    await expect(limiter.hit('ref-a', 'token', ['ip:1'])).rejects.toMatchObject({ status: 429 });
    // Other projects and actions count apart.
    await limiter.hit('ref-b', 'token', ['ip:1']);
    await limiter.hit('ref-a', 'refresh', ['ip:1']);
  });

  it('lets requests through, with a warning, when Redis cannot be reached', async () => {
    const down = limiterWith({
      AUTH_RATE_LIMIT_PER_MINUTE: '1',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    try {
      await down.hit('ref-a', 'token', ['ip:1']);
      await down.hit('ref-a', 'token', ['ip:1']);
      expect(warnings.length).toBeGreaterThanOrEqual(2);
    } finally {
      await down.onModuleDestroy();
    }
  });
});
