import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Errors } from '@baseplate/errors';

/** The content type uploads are re-labelled with, so only our streaming parser sees them. */
const STREAM_TYPE = 'application/x-baseplate-upload-stream';
const ORIGINAL_TYPE = Symbol('storage upload content type');

/** `/object/<word>/...` routes whose POST or PUT carry JSON, not file bytes. */
const JSON_ROUTES = new Set([
  'list',
  'sign',
  'move',
  'copy',
  'info',
  'public',
  'authenticated',
  'upload',
]);

/**
 * Does this request carry file bytes? POST/PUT `/storage/v1/object/<bucket>/<name>` and
 * PUT `/storage/v1/object/upload/sign/<bucket>/<name>` (the URL after the `/projects/<ref>`
 * rewrite).
 */
export function isUploadRequest(method: string, url: string): boolean {
  if (method !== 'POST' && method !== 'PUT') return false;
  const path = url.split('?', 1)[0]!;
  if (!path.startsWith('/storage/v1/object/')) return false;
  const segments = path.slice('/storage/v1/object/'.length).split('/');
  if (segments[0] === 'upload' && segments[1] === 'sign') {
    return method === 'PUT' && segments.length >= 4;
  }
  return !JSON_ROUTES.has(segments[0]!) && segments.length >= 2;
}

/** An upload's body, unread: the handler streams it to the blob store. */
export class UploadBody {
  constructor(
    readonly stream: Readable,
    /** The Content-Type the client sent (multipart boundary or the file's type). */
    readonly contentType: string,
    readonly headers: IncomingHttpHeaders,
  ) {}
}

/**
 * Uploads bypass body parsing and size limits of the JSON and text parsers: an onRequest hook
 * re-labels them, and a parser for that label hands the handler the request stream as it is.
 * A client sending the label itself to another route gets a 415.
 */
export function installUploadStreaming(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (isUploadRequest(request.method, request.url)) {
      const headers = request.headers as IncomingHttpHeaders & { [ORIGINAL_TYPE]?: string };
      headers[ORIGINAL_TYPE] = headers['content-type'] ?? '';
      headers['content-type'] = STREAM_TYPE;
    }
    done();
  });
  fastify.addContentTypeParser(STREAM_TYPE, (request: FastifyRequest, payload, done) => {
    const headers = request.headers as IncomingHttpHeaders & { [ORIGINAL_TYPE]?: string };
    const original = headers[ORIGINAL_TYPE];
    if (original === undefined) {
      done(Errors.badRequest(`Unsupported Content-Type ${STREAM_TYPE}`), undefined);
      return;
    }
    done(null, new UploadBody(payload as Readable, original, request.headers));
  });
}
