import type { FastifyInstance } from 'fastify';
import { Errors } from '@baseplate/errors';
import { RawBody, wantsRawBody } from './raw-body';

/**
 * JSON bodies through Fastify's own parser (prototype-poisoning checks included), with
 * two changes: an empty body is no body (supabase-js sends `POST /logout` with a JSON
 * Content-Type and nothing else), and a malformed one is our 400, not a framework error.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // The REST engine parses (and reports on) its own JSON.
    if (wantsRawBody(request.url)) {
      done(null, new RawBody(text));
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, (err, value) => {
      if (err) done(Errors.badRequest('Request body is not valid JSON'), undefined);
      else done(null, value);
    });
  });
}
