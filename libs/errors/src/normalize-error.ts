import { HttpException } from '@nestjs/common';
import { AppError, ErrorCode, Errors, isAppError } from './app-error';
import { codeForStatus, toAppError } from './http-error-body';

function messageOf(e: HttpException): string {
  const response = e.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : e.message;
}

/**
 * Everything an HTTP app can throw, as an AppError with the status it deserves: ours pass
 * through; Nest's HttpExceptions (guards, pipes, its "Cannot GET /x" for unknown routes)
 * keep their status; framework errors go through toAppError. Each app's filter renders
 * the result in its wire format.
 */
export function normalizeError(e: unknown, method: string, path: string): AppError {
  if (isAppError(e)) return e;
  if (!(e instanceof HttpException)) return toAppError(e);
  const status = e.getStatus();
  if (status >= 500) return Errors.internal(e);
  const message = messageOf(e);
  if (status === 404 && /^Cannot [A-Z]+ /.test(message)) return Errors.routeNotFound(method, path);
  // passport answers a bare "Unauthorized"; say what was wrong.
  if (status === 401 && message === 'Unauthorized') {
    return Errors.unauthorized('Missing or invalid credentials');
  }
  return new AppError(codeForStatus(status) ?? ErrorCode.BadRequest, status, message, { cause: e });
}
