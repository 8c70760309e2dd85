import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { AuthErrors } from '@baseplate/auth';
import { createProducerRedis } from '@baseplate/jobs';
import { sha256Hex } from '@baseplate/security';

const WINDOW_S = 60;
const REDIS_TIMEOUT_MS = 500;

/**
 * Fixed one-minute windows counted in Redis (INCR + EXPIRE in one MULTI), so every data-plane
 * instance shares the count. Over the limit: 429 `over_request_rate_limit` with Retry-After.
 * Redis unreachable: the request is let through and a warning logged (sign-in must not depend
 * on the cache being up).
 */
@Injectable()
export class AuthRateLimiter implements OnModuleDestroy {
  private readonly redis: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectPinoLogger(AuthRateLimiter.name) private readonly logger: PinoLogger,
  ) {
    this.redis = createProducerRedis(config.redisUrl, { commandTimeout: REDIS_TIMEOUT_MS });
    this.redis.on('error', () => undefined);
  }

  /** Counts one hit on every key; throws 429 when any is over the limit. */
  async hit(ref: string, action: string, subjects: string[]): Promise<void> {
    const limit = this.config.authRateLimitPerMinute;
    const keys = subjects.map((s) => `${this.config.queuePrefix}:auth-rl:${ref}:${action}:${s}`);
    let results: Array<[Error | null, unknown]> | null;
    try {
      const multi = this.redis.multi();
      for (const key of keys) multi.incr(key).expire(key, WINDOW_S, 'NX').ttl(key);
      results = await multi.exec();
    } catch (err) {
      this.logger.warn({ err, ref, action }, 'Rate limit not checked: Redis unavailable');
      return;
    }
    if (!results) return;
    for (let i = 0; i < keys.length; i++) {
      const count = Number(results[i * 3]?.[1]);
      const ttl = Number(results[i * 3 + 2]?.[1]);
      if (count > limit) throw AuthErrors.rateLimited(ttl > 0 ? ttl : WINDOW_S);
    }
  }

  /**
   * Called before an email goes to `email`: a second one within the interval is 429
   * `over_email_send_rate_limit`. Counted per address whether or not it has an account, so
   * the answer reveals nothing about which addresses are registered.
   */
  async emailOnce(ref: string, email: string): Promise<void> {
    // GoTrue's SMTP max frequency: one email per address and project this often.
    const interval = this.config.authEmailIntervalS;
    if (interval <= 0) return;
    const key = `${this.config.queuePrefix}:auth-mail:${ref}:${sha256Hex(email)}`;
    let set: string | null;
    let ttl: number;
    try {
      const results = await this.redis.multi().set(key, '1', 'EX', interval, 'NX').ttl(key).exec();
      set = (results?.[0]?.[1] as string | null) ?? null;
      ttl = Number(results?.[1]?.[1]);
    } catch (err) {
      this.logger.warn({ err, ref }, 'Email frequency not checked: Redis unavailable');
      return;
    }
    if (set !== 'OK') throw AuthErrors.emailRateLimited(ttl > 0 ? ttl : interval);
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }
}
