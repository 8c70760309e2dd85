import type { FastifyReply, FastifyRequest } from 'fastify';
import { StorageError } from '@baseplate/storage';
import { sendJson } from '../http/send-json';

export type Body = Record<string, unknown>;

export const isObject = (v: unknown): v is Body =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const bodyOf = (req: FastifyRequest): Body => (isObject(req.body) ? req.body : {});

export const queryOf = (req: FastifyRequest): Record<string, unknown> =>
  (req.query ?? {}) as Record<string, unknown>;

export const requestOf = (req: FastifyRequest): { method: string; path: string } => ({
  method: req.method,
  path: req.url.split('?', 1)[0]!,
});

/** The object name of a wildcard route (`/object/<bucket>/<name...>`), decoded by the router. */
export const wildcardOf = (req: FastifyRequest): string =>
  (req.params as { '*'?: string })['*'] ?? '';

/**
 * Runs a storage handler: its result as JSON (undefined: the handler answered itself), a
 * StorageError in storage-api's shape, anything else to the exception filter.
 */
export async function answer(reply: FastifyReply, fn: () => Promise<unknown>): Promise<void> {
  try {
    const result = await fn();
    if (result === undefined) return;
    await sendJson(reply, 200, result);
  } catch (e) {
    if (!(e instanceof StorageError)) throw e;
    if (reply.sent) return;
    await sendJson(reply, e.status, e.toJSON());
  }
}
