import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IncomingMessage, ServerResponse } from 'node:http';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { API_VERSION_HEADER } from '@baseplate/auth';
import { DatabaseConnectionError } from '@baseplate/database';
import { Errors, errorBody, normalizeError } from '@baseplate/errors';
import { sentUrlOf } from '../project-context/project-path';

const pathOf = (url: string): string => url.split('?', 1)[0]!;

// The URL after the `/projects/<ref>` rewrite: the service prefix is at its start.
const rawPathOf = (raw: IncomingMessage): string => pathOf(raw.url ?? '/');
const isRestPath = (path: string): boolean => path === '/rest/v1' || path.startsWith('/rest/v1/');
const isAuthPath = (path: string): boolean => path === '/auth' || path.startsWith('/auth/');
const isStoragePath = (path: string): boolean => path.startsWith('/storage/v1/');

// Errors from Nest middleware arrive with the raw request; everything else with Fastify's.
const rawOf = (request: FastifyRequest | IncomingMessage): IncomingMessage =>
  'raw' in request ? request.raw : request;

/**
 * The data plane's one exception filter: every error leaves as JSON with a string
 * `error` (the HTTP reason phrase), `code` and `message`. It also sees what Fastify
 * hooks throw (project resolution) and unknown routes, via Nest's Fastify error handler.
 */
@Catch()
export class DataPlaneExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectPinoLogger(DataPlaneExceptionFilter.name) private readonly logger: PinoLogger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const raw = rawOf(http.getRequest<FastifyRequest | IncomingMessage>());
    const method = raw.method ?? 'GET';
    const path = pathOf(sentUrlOf(raw));
    // The project database could not be reached (auth, storage): the service, not the
    // request, is at fault. The REST engine maps this itself (PGRST000 / PGRST003).
    const error =
      exception instanceof DatabaseConnectionError
        ? exception.timedOut
          ? Errors.timeout('Timed out waiting for a connection to the project database')
          : Errors.unavailable('The project database is unreachable')
        : normalizeError(exception, method, path);
    if (error.status >= 500) {
      this.logger.error({ err: error.cause ?? exception, method, path }, 'Request failed');
    }
    const adapter = this.adapterHost.httpAdapter;
    const response = http.getResponse<FastifyReply | ServerResponse>();
    if (adapter.isHeadersSent(response)) return;
    // A handler may have set another type (CSV, a file) before failing; the error is JSON.
    if (!(response instanceof ServerResponse)) {
      void response.header('content-type', 'application/json; charset=utf-8');
    }
    const rawPath = rawPathOf(raw);
    let body: Record<string, unknown> = errorBody(error);
    if (isRestPath(rawPath)) {
      // Under /rest/v1 clients read PostgREST's four keys (code, details, hint, message).
      body = { ...body, details: null, hint: null };
    } else if (isStoragePath(rawPath)) {
      // storage-js reads `statusCode` (a string) beside `error` and `message`.
      body = { statusCode: String(error.status), ...body };
    } else if (isAuthPath(rawPath)) {
      // Under /auth, GoTrue's keys (a bad key, a malformed body): supabase-js reads `code`
      // when the API version header is present, `error_code` and `msg` otherwise.
      body = { ...body, error_code: error.code, msg: error.message };
      if (!(response instanceof ServerResponse)) {
        void response.header(API_VERSION_HEADER.name, API_VERSION_HEADER.value);
      }
    }
    adapter.reply(response, body, error.status);
  }
}
