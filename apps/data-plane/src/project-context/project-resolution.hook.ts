import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProjectAuthService } from './project-auth.service';
import { isProjectServicePath, pathRefOf } from './project-path';

const isPreflight = (request: FastifyRequest): boolean =>
  request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;

/**
 * Project routes are recognised by the URL and, as a second line, by the matched route's
 * pattern, so no URL spelling that still reaches a project route skips authentication.
 */
export function needsProject(request: FastifyRequest): boolean {
  if (isPreflight(request)) return false;
  const pattern = request.is404 ? undefined : request.routeOptions.url;
  return (
    isProjectServicePath(request.url) || (pattern !== undefined && isProjectServicePath(pattern))
  );
}

/**
 * Resolves and authenticates the project for every request under a service prefix, in
 * `onRequest`: before the body is read and before routing decides on a 404, as a gateway
 * would. Added after the CORS hook, so preflights need no key and errors carry CORS headers.
 */
export function installProjectResolution(fastify: FastifyInstance, auth: ProjectAuthService): void {
  fastify.decorateRequest('projectCtx', null);
  fastify.addHook('onRequest', async (request) => {
    if (!needsProject(request)) return;
    request.projectCtx = await auth.authenticate({
      pathRef: pathRefOf(request.raw),
      headers: request.headers,
      credentialsOptional: request.routeOptions.config?.projectAuth === 'optional',
    });
  });
}
