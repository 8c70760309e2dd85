import { randomUUID } from 'node:crypto';
import { All, Controller, Get, Post, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AuthError,
  AuthErrors,
  AuthStatements,
  AuthStore,
  checkPassword,
  checkStoredPassword,
  normalizeEmail,
  toAuthUser,
} from '@baseplate/auth';
import { dummyPasswordHash, hashPassword } from '@baseplate/security';
import { ProjectCtx, ProjectDatabaseService, type ProjectRequestContext } from '../project-context';
import { answer, type Body, bodyOf, isObject, queryOf, requestOf } from './auth-http';
import { AuthMailer } from './mailer';
import { AuthRateLimiter } from './rate-limiter';
import { clientMeta, sessionResponse } from './sessions';

/**
 * `/auth/v1` (and `/projects/<ref>/auth/v1`): GoTrue-compatible user auth per project.
 * Built so far: sign-up, password and refresh-token grants, the user, logout, settings,
 * health, JWKS and the spec's short paths (`/auth/signup|login|me|logout`). Email flows,
 * admin routes and rate limits come next (docs/design/auth.md).
 */
@ApiExcludeController()
@Controller()
export class AuthController {
  constructor(
    private readonly db: ProjectDatabaseService,
    private readonly limiter: AuthRateLimiter,
    private readonly mailer: AuthMailer,
  ) {}

  // The spec's short paths (section 4.2) answer exactly as their /auth/v1 twins.
  @Post(['auth/v1/signup', 'auth/signup'])
  signup(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      await this.limiter.hit(ctx.ref, 'signup', [`ip:${req.ip}`]);
      const body = bodyOf(req);
      const email = normalizeEmail(body.email);
      if (!email) throw AuthErrors.invalidEmail();
      const password = checkPassword(body.password, ctx.context.auth.passwordMinLength);
      // `full_name` (short path form) lands in the user metadata.
      const data = {
        ...(isObject(body.data) ? body.data : {}),
        ...(typeof body.full_name === 'string' ? { full_name: body.full_name } : {}),
      };
      const autoconfirm = ctx.context.auth.mailerAutoconfirm;
      if (!autoconfirm) await this.limiter.emailOnce(ctx.ref, email);
      const redirectTo = this.mailer.redirectFor(ctx, queryOf(req).redirect_to);
      const passwordHash = await hashPassword(password);
      const result = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        if (!autoconfirm) {
          const existing = await AuthStore.userByEmail(client, email);
          // A registered address gets the answer a new one would (no email, no hint), as
          // GoTrue does while confirmations are on; an unconfirmed one gets a new link.
          if (existing?.email_confirmed_at) return { hidden: true as const };
          if (existing) {
            // The new password rides with the new link: it applies once the address is proven.
            const user = await this.mailer.sendLink(ctx, client, {
              userId: existing.id,
              kind: 'signup',
              to: email,
              redirectTo,
              passwordHash,
            });
            return { user };
          }
        }
        const created = await AuthStore.createUser(client, {
          email,
          passwordHash,
          userMetadata: data,
          confirmed: autoconfirm,
        });
        if (!autoconfirm) {
          const user = await this.mailer.sendLink(ctx, client, {
            userId: created.id,
            kind: 'signup',
            to: email,
            redirectTo,
            passwordHash,
          });
          return { user };
        }
        const session = await AuthStore.createSession(client, created.id, clientMeta(req));
        const signedIn = await AuthStore.updateUser(client, created.id, { signedIn: true });
        await AuthStore.audit(client, 'user_signedup', created.id, req.ip);
        return { user: signedIn, session };
      });
      if ('hidden' in result) return hiddenUser(email, data);
      // Confirmation required: the user, no tokens (supabase-js then reports session: null).
      if (!('session' in result) || !result.session) return toAuthUser(result.user);
      return sessionResponse(ctx, result.user, result.session);
    });
  }

  @Post('auth/v1/token')
  token(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const grant = (req.query as Record<string, unknown>).grant_type;
      const body = bodyOf(req);
      if (grant === 'password') return this.passwordGrant(ctx, req, body);
      if (grant === 'refresh_token') return this.refreshGrant(ctx, req, body);
      throw new AuthError(400, 'unsupported_grant_type', 'Unsupported grant type');
    });
  }

  @Post('auth/login')
  login(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.passwordGrant(ctx, req, bodyOf(req)));
  }

  @Get(['auth/v1/user', 'auth/me'])
  user(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { userId, sessionId } = this.caller(ctx);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        if (!(await AuthStore.sessionExists(client, sessionId, userId))) {
          throw AuthErrors.sessionNotFound();
        }
        return AuthStore.userById(client, userId);
      });
      if (!user) throw AuthErrors.userNotFound();
      return toAuthUser(user);
    });
  }

  @Put('auth/v1/user')
  updateUser(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { userId, sessionId } = this.caller(ctx);
      const body = bodyOf(req);
      let newEmail: string | undefined;
      if (body.email !== undefined) {
        newEmail = normalizeEmail(body.email);
        if (!newEmail) throw AuthErrors.invalidEmail();
      }
      const passwordHash =
        body.password === undefined
          ? undefined
          : await hashPassword(checkPassword(body.password, ctx.context.auth.passwordMinLength));
      if (body.data !== undefined && !isObject(body.data)) {
        throw AuthErrors.validation('data must be an object');
      }
      const autoconfirm = ctx.context.auth.mailerAutoconfirm;
      if (newEmail && !autoconfirm) await this.limiter.emailOnce(ctx.ref, newEmail);
      const redirectTo = this.mailer.redirectFor(ctx, queryOf(req).redirect_to);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        if (!(await AuthStore.sessionExists(client, sessionId, userId))) {
          throw AuthErrors.sessionNotFound();
        }
        let updated = await AuthStore.updateUser(client, userId, {
          ...(passwordHash === undefined ? {} : { passwordHash }),
          ...(isObject(body.data) ? { userMetadata: body.data } : {}),
        });
        if (passwordHash !== undefined)
          await AuthStore.audit(client, 'user_updated_password', userId, req.ip);
        if (newEmail && newEmail !== updated.email) {
          // With confirmations on, the new address must prove itself first (new_email until then).
          updated = await AuthStore.changeEmail(
            client,
            userId,
            newEmail,
            autoconfirm ? 'now' : 'pending',
          );
          if (!autoconfirm) {
            updated = await this.mailer.sendLink(ctx, client, {
              userId,
              kind: 'email_change',
              to: newEmail,
              redirectTo,
            });
          }
          await AuthStore.audit(client, 'user_modified', userId, req.ip);
        }
        return updated;
      });
      return toAuthUser(user);
    });
  }

  @Post(['auth/v1/logout', 'auth/logout'])
  logout(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { userId, sessionId } = this.caller(ctx);
      const scope = (req.query as Record<string, unknown>).scope ?? 'global';
      if (scope !== 'global' && scope !== 'local' && scope !== 'others') {
        throw AuthErrors.validation('scope must be global, local or others');
      }
      await this.db.withAuthAdmin(ctx, requestOf(req), ({ client }) =>
        AuthStore.endSessions(client, userId, sessionId, scope),
      );
      return undefined;
    });
  }

  @Get('auth/v1/settings')
  settings(@ProjectCtx() ctx: ProjectRequestContext, @Res() reply: FastifyReply) {
    return answer(reply, async () => ({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: false,
      mailer_autoconfirm: ctx.context.auth.mailerAutoconfirm,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    }));
  }

  @Get('auth/v1/health')
  health(@Res() reply: FastifyReply) {
    return answer(reply, async () => ({
      version: 'baseplate',
      name: 'GoTrue',
      description: 'GoTrue-compatible auth of Baseplate',
    }));
  }

  @Get('auth/v1/.well-known/jwks.json')
  jwks(@Res() reply: FastifyReply) {
    // HS256 projects publish no public keys.
    return answer(reply, async () => ({ keys: [] }));
  }

  @All(['auth/v1/*', 'auth/*'])
  notFound(@Res() reply: FastifyReply) {
    return answer(reply, async () => {
      throw new AuthError(404, 'not_found', 'Not found');
    });
  }

  // ---------------------------------------------------------------------------------------

  private async passwordGrant(ctx: ProjectRequestContext, req: FastifyRequest, body: Body) {
    const email = normalizeEmail(body.email);
    // Per client and per account: password guessing from many addresses still hits the second.
    await this.limiter.hit(ctx.ref, 'token', [
      `ip:${req.ip}`,
      ...(email ? [`email:${email}`] : []),
    ]);
    const password = typeof body.password === 'string' ? body.password : '';
    // Read and write are one round trip each (AuthStatements): the hash dominates a sign-in,
    // and what is left should not take CPU from it.
    const found = email
      ? await this.db.authStatement(ctx, requestOf(req), AuthStatements.userByEmail(email))
      : undefined;
    // A missing account costs the same as a wrong password: the two look alike.
    const check = await checkStoredPassword(
      found?.encrypted_password ?? (await dummyPasswordHash()),
      password,
    );
    if (!found || !found.encrypted_password || !check.ok) throw AuthErrors.invalidCredentials();
    if (!found.email_confirmed_at) throw AuthErrors.emailNotConfirmed();
    if (found.banned_until && found.banned_until > new Date()) throw AuthErrors.userBanned();
    const { user, session } = await this.db.authStatement(
      ctx,
      requestOf(req),
      // A bcrypt hash (imported from Supabase) is replaced by argon2id on this sign-in.
      AuthStatements.signIn({ userId: found.id, ...clientMeta(req), rehash: check.rehash }),
    );
    return sessionResponse(ctx, user, session);
  }

  private async refreshGrant(ctx: ProjectRequestContext, req: FastifyRequest, body: Body) {
    await this.limiter.hit(ctx.ref, 'refresh', [`ip:${req.ip}`]);
    if (typeof body.refresh_token !== 'string' || body.refresh_token === '') {
      throw AuthErrors.validation('refresh_token is required');
    }
    // One round trip: the rotation commits before its answer is read, so a late reuse is
    // reported only once the session's revocation is durable.
    const result = await this.db.authStatement(
      ctx,
      requestOf(req),
      AuthStatements.rotateRefreshToken(body.refresh_token, { ip: req.ip }),
    );
    if ('reused' in result) throw AuthErrors.refreshTokenAlreadyUsed();
    return sessionResponse(ctx, result.user, result);
  }

  /** The signed-in user behind a user token (the hook has verified it). */
  private caller(ctx: ProjectRequestContext): { userId: string; sessionId: string } {
    const { sub, session_id: sessionId } = ctx.claims as { sub?: unknown; session_id?: unknown };
    if (ctx.role !== 'authenticated' || typeof sub !== 'string') {
      throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
    }
    if (typeof sessionId !== 'string') throw AuthErrors.sessionNotFound();
    return { userId: sub, sessionId };
  }
}

/**
 * What sign-up answers for an address that already has a confirmed account while
 * confirmations are on: shaped like a new user, so the response does not reveal the account.
 */
function hiddenUser(email: string, data: Record<string, unknown>) {
  const now = new Date();
  return toAuthUser({
    id: randomUUID(),
    aud: 'authenticated',
    role: 'authenticated',
    email,
    phone: null,
    email_confirmed_at: null,
    last_sign_in_at: null,
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    raw_user_meta_data: data,
    is_anonymous: false,
    created_at: now,
    updated_at: now,
    confirmation_sent_at: now,
  });
}
