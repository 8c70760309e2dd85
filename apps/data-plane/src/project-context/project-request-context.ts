import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { ProjectContext } from '@baseplate/control-db';
import { ApiRole } from '@baseplate/database';
import { Errors } from '@baseplate/errors';
import { VerifiedClaims } from '@baseplate/security';
import { RefSource } from './project-path';

/**
 * What every project-scoped handler (REST, auth, storage, functions) knows about the
 * caller: the project, and the verified role and claims that pick the database role.
 */
export interface ProjectRequestContext {
  ref: string;
  /** How the ref was found (path, functions path form A, apikey or Bearer claim). */
  refSource: RefSource;
  /** Holds the project's JWT secret: never log or render it. */
  context: ProjectContext;
  role: ApiRole;
  /** Verified claims; `role` is always present. Bare `{role: 'anon'}` on a public route without a key. */
  claims: VerifiedClaims & { role: ApiRole };
}

/** Route config key read by the resolution hook (Fastify route `config`). */
export type ProjectAuthMode = 'required' | 'optional';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the project resolution hook for every request under a project service prefix. */
    projectCtx: ProjectRequestContext | null;
  }
  interface FastifyContextConfig {
    projectAuth?: ProjectAuthMode;
  }
}

/**
 * Marks a route that serves requests without any key (public storage objects, for
 * instance): they run as `anon`. A key or token that IS given must still verify.
 */
export const PublicProjectRoute = (): MethodDecorator =>
  RouteConfig({ projectAuth: 'optional' satisfies ProjectAuthMode });

/** The caller's project context: `handler(@ProjectCtx() ctx: ProjectRequestContext)`. */
export const ProjectCtx = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ProjectRequestContext => {
    const request = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (!request.projectCtx) {
      // A programming error: the route lies outside the project service prefixes.
      throw Errors.internal(new Error(`No project context for ${request.method} ${request.url}`));
    }
    return request.projectCtx;
  },
);
