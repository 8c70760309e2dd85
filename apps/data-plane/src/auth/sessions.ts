import { issueAccessToken, toAuthUser, type UserRow } from '@baseplate/auth';
import type { FastifyRequest } from 'fastify';
import type { ProjectRequestContext } from '../project-context';

/**
 * The token response of every sign-in (password, refresh, verify): tokens at the root with a
 * non-zero expires_in and expires_at in seconds (wire reference trap T2), and the user.
 */
export async function sessionResponse(
  ctx: ProjectRequestContext,
  row: UserRow,
  session: { sessionId: string; refreshToken: string },
  method?: string,
) {
  const user = toAuthUser(row);
  const expiresIn = ctx.context.auth.jwtExp;
  const access = await issueAccessToken({
    secret: ctx.context.jwtSecret!,
    ref: ctx.ref,
    user,
    sessionId: session.sessionId,
    expiresIn,
    ...(method ? { method } : {}),
  });
  return {
    access_token: access.token,
    token_type: 'bearer',
    expires_in: expiresIn,
    expires_at: access.expiresAt,
    refresh_token: session.refreshToken,
    user,
  };
}

/** What a new session records about its client. */
export function clientMeta(req: FastifyRequest): { userAgent?: string; ip?: string } {
  const agent = req.headers['user-agent'];
  return { ...(agent ? { userAgent: agent } : {}), ip: req.ip };
}
