import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';

/** supabase-js-wire.md §0.3: what the official client sends from a browser. */
export const CORS_ALLOWED_HEADERS = [
  'apikey',
  'authorization',
  'x-client-info',
  'content-type',
  'x-supabase-api-version',
  'accept-profile',
  'content-profile',
  'prefer',
  'accept',
  'x-upsert',
  'x-metadata',
  'cache-control',
  'content-encoding',
  'x-region',
  'x-retry-count',
  'traceparent',
  'tracestate',
  'baggage',
  'range',
] as const;

/** §0.3 plus what PostgREST exposes; the client cannot read other response headers. */
export const CORS_EXPOSED_HEADERS = [
  'content-range',
  'x-total-count',
  'link',
  'x-supabase-api-version',
  'x-relay-error',
  'content-profile',
  'content-location',
  'location',
  'preference-applied',
  'range-unit',
] as const;

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The known headers plus whatever the preflight asks for (supabase-js `global.headers`). */
export function allowedHeadersFor(requested: string | undefined): string[] {
  const extra = (requested ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h));
  return [...new Set<string>([...CORS_ALLOWED_HEADERS, ...extra])];
}

/**
 * Any origin, reflected: keys travel in headers, never cookies, so credentials stay off.
 * Preflights are answered in the first onRequest hook, before any key is checked.
 */
export const corsOptions: FastifyCorsOptions = {
  delegator: (request: FastifyRequest, callback) =>
    callback(null, {
      origin: true,
      methods: [...CORS_METHODS],
      allowedHeaders: allowedHeadersFor(
        request.headers['access-control-request-headers'] as string | undefined,
      ),
      exposedHeaders: [...CORS_EXPOSED_HEADERS],
      credentials: false,
      maxAge: 86400,
      // A bare OPTIONS (no Origin) gets the same 204 instead of a text/plain 400.
      strictPreflight: false,
    }),
};
