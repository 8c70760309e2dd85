import { STATUS_CODES } from 'node:http';
import { AppError, Errors, isAppError } from './app-error';

/**
 * The platform's JSON error body: `error` is the HTTP reason phrase (so a 401 reads
 * `{"error":"Unauthorized"}` as the spec shows), `code` is machine-readable.
 */
export interface ErrorBody {
  error: string;
  code: string;
  message: string;
  [extra: string]: unknown;
}

export function errorBody(err: AppError): ErrorBody {
  return {
    error: STATUS_CODES[err.status] ?? 'Error',
    code: err.code,
    message: err.message,
    ...(err.details ?? {}),
  };
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  message?: string;
  type?: string;
  code?: string;
}

/**
 * Maps anything thrown to an AppError. Framework errors that carry a 4xx status
 * (body-parser's malformed JSON, Fastify's content-type errors) keep their status and
 * message; everything else is an internal error whose cause is logged, not rendered.
 */
export function toAppError(e: unknown): AppError {
  if (isAppError(e)) return e;
  const h = (e ?? {}) as HttpishError;
  const status = h.statusCode ?? h.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (
      h.type === 'entity.parse.failed' ||
      h.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      e instanceof SyntaxError
    ) {
      return Errors.badRequest('Request body is not valid JSON');
    }
    if (status === 413) return Errors.payloadTooLarge('Request body is too large');
    return Errors.badRequest(h.message ?? 'Bad request');
  }
  return Errors.internal(e);
}
