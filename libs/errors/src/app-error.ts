/**
 * One error type for the whole platform. Call sites read like sentences
 * (`throw Errors.projectNotFound(ref)`); each app's filter renders it in its wire format.
 */
export enum ErrorCode {
  BadRequest = 'bad_request',
  ValidationFailed = 'validation_failed',
  Unauthorized = 'unauthorized',
  InvalidCredentials = 'invalid_credentials',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  ProjectNotFound = 'project_not_found',
  ProjectNotReady = 'project_not_ready',
  ProjectNotGiven = 'project_not_given',
  Conflict = 'conflict',
  EmailTaken = 'email_exists',
  PayloadTooLarge = 'payload_too_large',
  SqlError = 'sql_error',
  Timeout = 'timeout',
  Unavailable = 'service_unavailable',
  Internal = 'internal_error',
}

export interface AppErrorOptions {
  /** Extra fields rendered next to `error` and `message` (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly details?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.details = options.details;
  }
}

const make =
  (code: ErrorCode, status: number) =>
  (message: string, options?: AppErrorOptions): AppError =>
    new AppError(code, status, message, options);

export const Errors = {
  badRequest: make(ErrorCode.BadRequest, 400),
  validation: (messages: string[]) =>
    new AppError(ErrorCode.ValidationFailed, 400, messages.join('; '), {
      details: { errors: messages },
    }),
  unauthorized: make(ErrorCode.Unauthorized, 401),
  invalidCredentials: () =>
    new AppError(ErrorCode.InvalidCredentials, 401, 'Invalid email or password'),
  forbidden: make(ErrorCode.Forbidden, 403),
  notFound: make(ErrorCode.NotFound, 404),
  routeNotFound: (method: string, path: string) =>
    new AppError(ErrorCode.NotFound, 404, `No route for ${method} ${path}`),
  projectNotFound: (ref: string) =>
    new AppError(ErrorCode.ProjectNotFound, 404, `Project ${ref} not found`),
  projectNotReady: (ref: string, status: string) =>
    new AppError(ErrorCode.ProjectNotReady, 503, `Project ${ref} is not active (status ${status})`),
  projectNotGiven: () =>
    new AppError(
      ErrorCode.ProjectNotGiven,
      400,
      'No project given: use /projects/<ref>/... or send an apikey or Bearer token of the project',
    ),
  conflict: make(ErrorCode.Conflict, 409),
  emailTaken: () =>
    new AppError(ErrorCode.EmailTaken, 409, 'An account with this email already exists'),
  payloadTooLarge: make(ErrorCode.PayloadTooLarge, 413),
  sql: (message: string, sqlstate: string | undefined) =>
    new AppError(ErrorCode.SqlError, 400, message, { details: { sqlstate: sqlstate ?? null } }),
  timeout: make(ErrorCode.Timeout, 504),
  /** A dependency (Redis, say) is out of reach: worth retrying, unlike a 500. */
  unavailable: make(ErrorCode.Unavailable, 503),
  /** `message` must be safe to show: the cause is logged, never rendered. */
  internal: (cause?: unknown, message = 'Internal server error') =>
    new AppError(ErrorCode.Internal, 500, message, { cause }),
};

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
