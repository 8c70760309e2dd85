import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { AuthErrors } from '@baseplate/auth';
import { createProducerRedis } from '@baseplate/jobs';
import { sha256Hex } from '@baseplate/security';

const WINDOW_S = 60;
const REDIS_TIMEOUT_MS = 500;

// Per key: INCR, and an expiry when the counter has none yet (a new window), then its TTL.
// One script instead of a MULTI of three commands per key: the hit is on every sign-in and
// refresh, and one command is what Redis and ioredis handle cheapest. Atomic as the MULTI was.
const HIT_SCRIPT = `local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('TTL', key)
  if ttl < 0 then
    redis.call('EXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[2 * i - 1] = count
  out[2 * i] = ttl
end
return out`;

type ScriptedRedis = Redis & {
  authRateHit(keyCount: number, ...keysThenWindow: Array<string | number>): Promise<number[]>;
};

/**
 * Fixed one-minute windows counted in Redis (INCR + EXPIRE in one script), so every data-plane
 * instance shares the count. Over the limit: 429 `over_request_rate_limit` with Retry-After.
 * Redis unreachable: the request is let through and a warning logged (sign-in must not depend
 * on the cache being up).
 */
@Injectable()
export class AuthRateLimiter implements OnModuleDestroy {
  private readonly redis: ScriptedRedis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectPinoLogger(AuthRateLimiter.name) private readonly logger: PinoLogger,
  ) {
    const redis = createProducerRedis(config.redisUrl, { commandTimeout: REDIS_TIMEOUT_MS });
    redis.on('error', () => undefined);
    // EVALSHA, falling back to EVAL when Redis does not know the script (after a restart).
    redis.defineCommand('authRateHit', { lua: HIT_SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  /** Counts one hit on every key; throws 429 when any is over the limit. */
  async hit(ref: string, action: string, subjects: string[]): Promise<void> {
    const limit = this.config.authRateLimitPerMinute;
    const keys = subjects.map((s) => `${this.config.queuePrefix}:auth-rl:${ref}:${action}:${s}`);
    let results: number[];
    try {
      results = await this.redis.authRateHit(keys.length, ...keys, WINDOW_S);
    } catch (err) {
      this.logger.warn({ err, ref, action }, 'Rate limit not checked: Redis unavailable');
      return;
    }
    for (let i = 0; i < keys.length; i++) {
      const count = Number(results[i * 2]);
      const ttl = Number(results[i * 2 + 1]);
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
