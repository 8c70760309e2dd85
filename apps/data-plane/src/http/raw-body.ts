import type { FastifyInstance } from 'fastify';

/** A request body left unparsed for the handler (the REST engine parses its own bodies). */
export class RawBody {
  constructor(readonly text: string) {}
}

/** Paths whose handlers want the body as text, whatever its Content-Type. */
export const wantsRawBody = (url: string | undefined): boolean =>
  url !== undefined &&
  (url === '/rest/v1' || url.startsWith('/rest/v1/') || url.startsWith('/rest/v1?'));

/**
 * Every Content-Type without its own parser arrives as text: the REST engine accepts CSV,
 * form-urlencoded and plain-text bodies and answers other types with its own 400 (PGRST102)
 * rather than Fastify's 415.
 */
export function registerRawBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new RawBody(typeof body === 'string' ? body : body.toString('utf8')));
  });
}
