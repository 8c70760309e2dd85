import { createClient, type SupabaseClientOptions } from '@supabase/supabase-js';
import type { RestFixture } from '../fixture';

/**
 * realtime-js builds its socket eagerly and throws on Node < 22 without a global WebSocket
 * (supabase-js-wire.md §0.4, trap T20). Nothing here subscribes to a channel, so a class that
 * is never instantiated is enough to let `createClient` succeed.
 */
class UnusedWebSocket {
  readonly readyState = 3;
  constructor(readonly url: string | URL) {
    throw new Error(`realtime is not used by these tests (${String(url)})`);
  }
  close(): void {}
  send(): void {}
}

type Transport = NonNullable<NonNullable<SupabaseClientOptions<'public'>['realtime']>['transport']>;

/** `createClient(url, key)` as a server-side app would, with the Node 20 transport set. */
export function createTestClient(
  url: string,
  key: string,
  options: SupabaseClientOptions<string> = {},
) {
  return createClient(url, key, {
    ...options,
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: UnusedWebSocket as unknown as Transport },
  });
}

/**
 * A supabase-js client for the fixture's project, created on the project's endpoint
 * `{data}/projects/<ref>` with its anon or service key.
 */
export function clientFor(
  f: RestFixture,
  key: 'anon' | 'service' = 'service',
  options: SupabaseClientOptions<string> = {},
) {
  return createTestClient(
    `${f.platform.data}/projects/${f.project.ref}`,
    key === 'anon' ? f.project.anonKey : f.project.serviceKey,
    options,
  );
}

export type Client = ReturnType<typeof clientFor>;

/**
 * The error object supabase-js hands to the app: PostgREST's four keys verbatim, plus the
 * string `error` field every Baseplate error body carries (the platform spec, section 7).
 */
export function pgError(
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
) {
  return { code, details, hint, message, error: message };
}

/** The part of a supabase-js result the tests compare (`success`/`statusText` follow from it). */
export function view(res: { data: unknown; error: unknown; count: number | null; status: number }) {
  return { data: res.data, error: res.error, count: res.count, status: res.status };
}

/** A successful read: `data` as given, no error, no count, 200. */
export function ok(data: unknown, status = 200, count: number | null = null) {
  return { data, error: null, count, status };
}

/** A failed call as supabase-js reports it: no data, no count. */
export function failed(status: number, error: ReturnType<typeof pgError>) {
  return { data: null, error, count: null, status };
}
