/**
 * Where the tests find PostgreSQL and Redis: DATABASE_URL / REDIS_URL when set, else the
 * local defaults. (The embedded fallbacks of `npm start` are wired in by libs/dev-services.)
 */
export async function ensureTestServices(): Promise<{ databaseUrl: string; redisUrl: string }> {
  return {
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

export async function stopTestServices(): Promise<void> {}
