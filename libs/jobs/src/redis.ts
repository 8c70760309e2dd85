import Redis, { RedisOptions } from 'ioredis';

/** BullMQ requires maxRetriesPerRequest: null on the connections it blocks on. */
export const createRedis = (url: string, options: RedisOptions = {}): Redis =>
  new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, ...options });
