import Redis, { RedisOptions } from 'ioredis';

/**
 * For the connections BullMQ blocks on (Worker, QueueEvents): it requires
 * maxRetriesPerRequest: null there, so a command waits for Redis however long it is away.
 */
export const createRedis = (url: string, options: RedisOptions = {}): Redis =>
  new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, ...options });

/**
 * For producers that answer a request (Queue.add, getJob, PUBLISH): a command fails after
 * one reconnection attempt or `commandTimeout` instead of waiting in the offline queue
 * until Redis returns, long after the caller gave up. It still connects at once, not
 * lazily: BullMQ waits for the first `ready` itself, and a failed lazy connect would leave
 * its Queue broken for good.
 */
export const createProducerRedis = (
  url: string,
  options: RedisOptions & { commandTimeout: number },
): Redis => new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false, ...options });

// One pending `ready` listener per connection, however many callers wait during an outage.
const nextReadies = new WeakMap<Redis, Promise<void>>();

function nextReady(redis: Redis): Promise<void> {
  let next = nextReadies.get(redis);
  if (!next) {
    next = new Promise((resolve) =>
      redis.once('ready', () => {
        nextReadies.delete(redis);
        resolve();
      }),
    );
    nextReadies.set(redis, next);
  }
  return next;
}

/**
 * True once `redis` is ready, false if it is not within `timeoutMs`. Lets a caller refuse
 * work while Redis is away rather than queue it: BullMQ would hold a Queue call until the
 * connection is back and run it then, long after the request was answered.
 */
export async function whenReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([nextReady(redis).then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deletes every key matching `pattern` (SCAN, not KEYS, so Redis is never blocked). */
export async function deleteKeysMatching(redis: Redis, pattern: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: pattern, count: 500 }) as AsyncIterable<
    string[]
  >) {
    if (keys.length) await redis.del(...keys);
  }
}
