import Redis from 'ioredis';

/**
 * Cache invalidation of project contexts. Producers publish a project ref after its
 * keys rotate or it goes away; every data plane drops what it cached for that ref.
 */
export const invalidationChannel = (prefix: string): string => `${prefix}:project-invalidate`;

export async function publishProjectInvalidation(
  redis: Redis,
  prefix: string,
  ref: string,
): Promise<void> {
  await redis.publish(invalidationChannel(prefix), ref);
}

/** Subscribes on a dedicated connection; `onReconnect` lets the caller drop everything it might have missed. */
export async function subscribeProjectInvalidation(
  redis: Redis,
  prefix: string,
  onRef: (ref: string) => void,
  onReconnect: () => void,
): Promise<void> {
  const channel = invalidationChannel(prefix);
  let connectedBefore = false;
  redis.on('ready', () => {
    if (connectedBefore) onReconnect();
    connectedBefore = true;
  });
  redis.on('message', (ch: string, message: string) => {
    if (ch === channel) onRef(message);
  });
  await redis.subscribe(channel);
  connectedBefore = true;
}
