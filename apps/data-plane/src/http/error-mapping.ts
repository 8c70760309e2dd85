import { HttpException } from '@nestjs/common';
import { AppError, ErrorCode, Errors, isAppError, toAppError } from '@baseplate/errors';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
};

const codeFor = (status: number): ErrorCode =>
  CODE_BY_STATUS[status] ?? (status >= 500 ? ErrorCode.Internal : ErrorCode.BadRequest);

function messageOf(e: HttpException): string {
  const response = e.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : e.message;
}

interface FrameworkError {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
}

/**
 * Everything thrown, as an AppError with the status it deserves. Nest's router throws a
 * NotFoundException for an unknown route; Fastify's own errors carry a 4xx `statusCode`
 * (415 unsupported media type, 413 too large) that is kept rather than flattened to 400.
 * Anything else is an internal error whose cause is logged, never rendered.
 */
export function normalizeError(e: unknown, method: string, path: string): AppError {
  if (isAppError(e)) return e;
  if (e instanceof HttpException) {
    const status = e.getStatus();
    // Nest's not-found handler: "Cannot GET /x".
    if (status === 404 && /^Cannot [A-Z]+ /.test(e.message))
      return Errors.routeNotFound(method, path);
    if (status >= 500) return Errors.internal(e);
    return new AppError(codeFor(status), status, messageOf(e), { cause: e });
  }
  const f = (e ?? {}) as FrameworkError;
  const status = f.statusCode;
  const isJsonError = f.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError;
  if (typeof status === 'number' && status > 400 && status < 500 && !isJsonError) {
    return new AppError(
      codeFor(status),
      status,
      typeof f.message === 'string' ? f.message : 'Bad request',
      {
        cause: e,
      },
    );
  }
  return toAppError(e);
}
