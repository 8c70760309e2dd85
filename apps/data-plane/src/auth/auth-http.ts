import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION_HEADER, AuthError, AuthErrors } from '@baseplate/auth';
import { sendJson } from '../http/send-json';
import type { ProjectRequestContext } from '../project-context';

export type Body = Record<string, unknown>;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON object body, or `{}` (an empty POST /logout arrives with a JSON content type). */
export const bodyOf = (req: FastifyRequest): Body => (isObject(req.body) ? req.body : {});

/** The method and path the auth service's transactions record in request.method / request.path. */
export const requestOf = (req: FastifyRequest): { method: string; path: string } => ({
  method: req.method,
  path: req.url.split('?', 1)[0]!,
});

/** Admin routes: the service key only; anything else is 403 `not_admin`. */
export function admin(ctx: ProjectRequestContext): void {
  if (ctx.role !== 'service_role') throw AuthErrors.notAdmin();
}

export const queryOf = (req: FastifyRequest): Record<string, unknown> =>
  (req.query ?? {}) as Record<string, unknown>;

/**
 * Runs an auth handler and answers in GoTrue's shape: its result as JSON (undefined: 204) with
 * the API version header (so supabase-js reads `code`), an AuthError as its JSON, anything
 * else to the exception filter. Handlers may set more headers on `reply` first.
 */
export async function answer(reply: FastifyReply, fn: () => Promise<unknown>): Promise<void> {
  void reply.header(API_VERSION_HEADER.name, API_VERSION_HEADER.value);
  try {
    const result = await fn();
    if (result === undefined) {
      await reply.status(204).send();
      return;
    }
    await sendJson(reply, 200, result);
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    await sendJson(reply.headers(e.headers), e.status, e.toJSON());
  }
}
