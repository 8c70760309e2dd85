import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppError, Errors } from './app-error';
import { errorBody, toAppError } from './http-error-body';

/** Nest's own HttpExceptions (guards, pipes, unknown routes) mapped onto the platform's codes. */
function fromHttpException(e: HttpException, method: string, path: string): AppError {
  const status = e.getStatus();
  const response = e.getResponse();
  const message =
    typeof response === 'object' && response && 'message' in response
      ? ([] as unknown[])
          .concat((response as { message: unknown }).message)
          .map(String)
          .join('; ')
      : e.message;
  if (status === 404 && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)/.test(message)) {
    return Errors.routeNotFound(method, path);
  }
  if (status === 401)
    return Errors.unauthorized(
      message === 'Unauthorized' ? 'Missing or invalid access token' : message,
    );
  if (status === 403) return Errors.forbidden(message);
  if (status === 404) return Errors.notFound(message);
  if (status === 413) return Errors.payloadTooLarge(message);
  if (status >= 400 && status < 500)
    return new AppError(Errors.badRequest('').code, status, message);
  return Errors.internal(e);
}

/**
 * The one global filter of an HTTP app: every error leaves as JSON with a string
 * `error`. Unknown errors are 500 with the cause logged and nothing internal shown.
 */
@Catch()
export class PlatformExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<{ method?: string; url?: string }>();
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    const err =
      exception instanceof HttpException
        ? fromHttpException(exception, method, path)
        : toAppError(exception);
    if (err.status >= 500) {
      this.logger.error(`${method} ${path} failed: ${describe(err.cause ?? exception)}`);
    }
    httpAdapter.reply(ctx.getResponse(), errorBody(err), err.status);
  }
}

const describe = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e));
