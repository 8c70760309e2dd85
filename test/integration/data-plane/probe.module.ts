import { Body, Controller, Get, Module, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ProjectContextModule,
  ProjectCtx,
  ProjectDatabaseService,
  ProjectRequestContext,
  PublicProjectRoute,
  requestHeadersForSql,
} from './data-plane';

/**
 * Stand-ins for the features to come (REST, storage, functions): each route reads the
 * project context the way they will, so these suites test that contract end to end.
 */
@Controller()
class ProbeController {
  constructor(private readonly databases: ProjectDatabaseService) {}

  @Get('rest/v1/_probe/whoami')
  whoami(@ProjectCtx() ctx: ProjectRequestContext) {
    return {
      ref: ctx.ref,
      refSource: ctx.refSource,
      role: ctx.role,
      claims: ctx.claims,
      status: ctx.context.status,
    };
  }

  @Get('storage/v1/_probe/public')
  @PublicProjectRoute()
  publicObject(@ProjectCtx() ctx: ProjectRequestContext) {
    return { role: ctx.role, claims: ctx.claims };
  }

  @Post('functions/v1/:name/_probe')
  invoke(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Param('name') name: string,
    @Body() body: unknown,
  ) {
    return { ref: ctx.ref, refSource: ctx.refSource, name, body: body ?? null };
  }

  @Get('rest/v1/_probe/db')
  db(@ProjectCtx() ctx: ProjectRequestContext, @Req() req: FastifyRequest) {
    const request = {
      method: req.method,
      path: req.url.split('?', 1)[0]!,
      searchPath: ['public'],
      headers: requestHeadersForSql(req.headers),
      readOnly: true,
    };
    return this.databases.withRequest(ctx, request, async (tx) => {
      const { rows } = await tx.client.query(
        `SELECT current_user AS "currentUser", auth.uid() AS uid, current_setting('request.path') AS path,
                current_setting('request.headers')::jsonb ->> 'x-client-info' AS "clientInfo"`,
      );
      return { ...rows[0], schemaVersion: tx.schemaVersion };
    });
  }
}

@Module({ imports: [ProjectContextModule], controllers: [ProbeController] })
export class ProbeModule {}
