import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { RestEngine, type RestRequest } from '@baseplate/rest-engine';
import {
  ProjectCtx,
  ProjectDatabaseService,
  type ProjectRequestContext,
  requestHeadersForSql,
} from '../project-context';
import { RawBody } from '../http/raw-body';

const PREFIX = '/rest/v1';

/**
 * `/rest/v1/*` (and `/projects/<ref>/rest/v1/*`, rewritten): the PostgREST-compatible data
 * API. Everything but the transport lives in @baseplate/rest-engine.
 */
@ApiExcludeController()
@Controller()
export class RestController {
  constructor(
    private readonly engine: RestEngine,
    private readonly db: ProjectDatabaseService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @All(['rest/v1', 'rest/v1/*'])
  async serve(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const url = req.url;
    const q = url.indexOf('?');
    const fullPath = q < 0 ? url : url.slice(0, q);
    const path = fullPath.slice(PREFIX.length) || '/';
    const request: RestRequest = {
      method: req.method,
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      headers: req.headers,
      ...bodyOf(req.body),
    };
    const headers = requestHeadersForSql(req.headers);
    const statementTimeoutMs = this.config.restStatementTimeoutMs;
    const response = await this.engine.handle({
      request,
      settings: ctx.context.rest,
      role: ctx.role,
      cacheKey: `${ctx.ref}:${ctx.context.dbName}`,
      basePath: ctx.refSource === 'path' ? `/projects/${ctx.ref}${PREFIX}` : PREFIX,
      run: (options, fn) =>
        this.db.withRequest(
          ctx,
          {
            method: req.method,
            path,
            searchPath: options.searchPath,
            headers,
            readOnly: options.readOnly,
            statementTimeoutMs,
          },
          fn,
        ),
      pipelineWrite: (options, statement, finish) =>
        this.db.pipelinedTransaction(
          ctx,
          { method: req.method, path, searchPath: options.searchPath, headers, statementTimeoutMs },
          statement,
          finish,
          options.generation,
        ),
      pipeline: (options, statement) =>
        this.db.pipelinedRead(
          ctx,
          { method: req.method, path, searchPath: options.searchPath, headers, statementTimeoutMs },
          statement,
          options.generation,
        ),
    });
    void reply.status(response.status).headers(response.headers);
    if (response.status === 401 && !('www-authenticate' in response.headers)) {
      void reply.header('www-authenticate', 'Bearer');
    }
    await reply.send(response.body ?? '');
  }
}

function bodyOf(body: unknown): { body?: string } {
  if (body instanceof RawBody) return { body: body.text };
  if (typeof body === 'string') return { body };
  if (body === undefined || body === null) return {};
  // Another parser got there first (should not happen under /rest/v1): re-serialise.
  return { body: JSON.stringify(body) };
}
