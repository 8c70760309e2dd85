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

// SQLSTATE is five digits or capitals; class 22 is "data exception".
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;
const NOT_NULL_VIOLATION = '23502';

// What each refusal means for the client; PostgreSQL's own text names columns, types and
// the offending value, so it is never passed on.
const INPUT_MESSAGES: Record<string, string> = {
  '22001': 'a value is too long',
  '22003': 'a number is out of range',
  '22007': 'a date or time has the wrong format',
  '22008': 'a date or time is out of range',
  '22021': 'text contains a character that is not allowed (such as a NUL byte)',
  '22P02': 'a value has the wrong format',
  '22P05': 'text contains a character that is not allowed (such as a NUL byte)',
  [NOT_NULL_VIOLATION]: 'a required value is missing or null',
};

/**
 * The SQLSTATE of a PostgreSQL error, raw from `pg` (`code`) or wrapped by TypeORM's
 * QueryFailedError (`driverError.code`); undefined for anything else.
 */
function sqlStateOf(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const { code, driverError } = e as { code?: unknown; driverError?: { code?: unknown } };
  const sqlstate = driverError?.code ?? code;
  return typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate) ? sqlstate : undefined;
}

/**
 * A value the database refused as data (NUL byte, over-long, malformed, null where it may
 * not be) is the client's fault: 400. Strict on purpose: only SQLSTATE class 22 and
 * not_null_violation; every other database error (permissions, missing tables, broken
 * connections) remains a 500, since the client could not have caused or fixed it.
 */
function inputErrorOf(e: unknown): AppError | undefined {
  const sqlstate = sqlStateOf(e);
  if (!sqlstate || !(DATA_EXCEPTION.test(sqlstate) || sqlstate === NOT_NULL_VIOLATION)) {
    return undefined;
  }
  const what = INPUT_MESSAGES[sqlstate] ?? 'a value was refused by the database';
  return Errors.badRequest(`Invalid input: ${what}`, { cause: e });
}

/**
 * Maps anything thrown to an AppError. Framework errors that carry a 4xx status
 * (body-parser's malformed JSON, Fastify's content-type errors) keep their status and
 * message; PostgreSQL's refusals of a value are a 400 (see inputErrorOf); everything else
 * is an internal error whose cause is logged, not rendered.
 */
export function toAppError(e: unknown): AppError {
  if (isAppError(e)) return e;
  const input = inputErrorOf(e);
  if (input) return input;
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
