import { STATUS_CODES } from 'node:http';
import { AppError, ErrorCode, Errors, isAppError } from './app-error';

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

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
};

export const codeForStatus = (status: number): ErrorCode | undefined => CODE_BY_STATUS[status];

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
    return new AppError(
      CODE_BY_STATUS[status] ?? ErrorCode.BadRequest,
      status,
      h.message ?? 'Bad request',
    );
  }
  return Errors.internal(e);
}
