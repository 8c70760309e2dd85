import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { errorBody } from './http-error-body';
import { normalizeError } from './normalize-error';

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
    const err = normalizeError(exception, method, path);
    if (err.status >= 500) {
      this.logger.error(`${method} ${path} failed: ${describe(err.cause ?? exception)}`);
    }
    httpAdapter.reply(ctx.getResponse(), errorBody(err), err.status);
  }
}

const describe = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e));
