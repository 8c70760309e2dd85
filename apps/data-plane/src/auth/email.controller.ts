import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AuthError,
  AuthErrors,
  AuthStore,
  checkPassword,
  type ConsumedToken,
  type EmailKind,
  normalizeEmail,
  OneTimeTokens,
  toAuthUser,
  type UserRow,
  VERIFY_TYPES,
} from '@baseplate/auth';
import { hashPassword } from '@baseplate/security';
import {
  ProjectCtx,
  ProjectDatabaseService,
  type ProjectRequestContext,
  PublicProjectRoute,
} from '../project-context';
import { admin, answer, type Body, bodyOf, isObject, queryOf, requestOf } from './auth-http';
import { AuthMailer } from './mailer';
import { AuthRateLimiter } from './rate-limiter';
import { clientMeta, sessionResponse } from './sessions';

/** `generate_link` types → the kind of token they make (and the `/verify` type it takes). */
const LINK_TYPES: Readonly<Record<string, EmailKind>> = {
  signup: 'signup',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change_current: 'email_change',
  email_change_new: 'email_change',
};

/** The `amr` method a verified link signs in with. */
const METHODS: Record<EmailKind, string> = {
  signup: 'otp',
  invite: 'invite',
  recovery: 'recovery',
  magiclink: 'otp',
  email_change: 'email_change',
};

const own = <T>(map: Readonly<Record<string, T>>, key: unknown): T | undefined =>
  typeof key === 'string' && Object.hasOwn(map, key) ? map[key] : undefined;

/**
 * The email flows of `/auth/v1`: links and six-digit codes for sign-up confirmation, password
 * recovery, magic links, invites and email changes (`/verify`, `/recover`, `/resend`, `/otp`,
 * `/invite`, `/admin/generate_link`). Tokens are single-use, expire after an hour and are stored
 * hashed; emails go through the `email` queue.
 */
@ApiExcludeController()
@Controller()
export class AuthEmailController {
  constructor(
    private readonly db: ProjectDatabaseService,
    private readonly limiter: AuthRateLimiter,
    private readonly mailer: AuthMailer,
  ) {}

  /**
   * The link of an email: signs in and redirects with the session in the URL fragment. A
   * browser follows it with no key, so the project comes from the path (links use that form).
   */
  @Get('auth/v1/verify')
  @PublicProjectRoute()
  async verifyLink(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const query = queryOf(req);
    const target = new URL(this.mailer.redirectFor(ctx, query.redirect_to));
    let fragment: URLSearchParams;
    try {
      await this.limiter.hit(ctx.ref, 'verify', [`ip:${req.ip}`]);
      if (typeof query.token !== 'string' || query.token === '') throw AuthErrors.otpExpired();
      const session = await this.verify(ctx, req, { type: query.type, tokenHash: query.token });
      fragment = new URLSearchParams({
        access_token: session.access_token,
        expires_at: String(session.expires_at),
        expires_in: String(session.expires_in),
        refresh_token: session.refresh_token,
        token_type: 'bearer',
        type: String(query.type),
      });
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      // GoTrue reports a failed link to the site, in the fragment, rather than as a JSON page.
      fragment = new URLSearchParams({
        error: e.status === 429 ? 'over_request_rate_limit' : 'access_denied',
        error_code: e.code,
        error_description: e.message,
      });
    }
    target.hash = fragment.toString();
    await reply.header('cache-control', 'no-store').redirect(target.toString(), 303);
  }

  /** verifyOtp: `{type, token_hash}` or `{type, email, token}` → a session. */
  @Post('auth/v1/verify')
  verifyOtp(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      await this.limiter.hit(ctx.ref, 'verify', [`ip:${req.ip}`]);
      const body = bodyOf(req);
      if (body.phone !== undefined)
        throw AuthErrors.validation('Phone verification is not enabled');
      return this.verify(ctx, req, {
        type: body.type,
        tokenHash: body.token_hash,
        email: body.email,
        token: body.token,
      });
    });
  }

  /** resetPasswordForEmail: `{}` whether or not the address has an account. */
  @Post('auth/v1/recover')
  recover(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { email, redirectTo } = await this.emailRequest(ctx, req, 'recover');
      await this.linkForAccount(ctx, req, email, redirectTo, () => ({
        kind: 'recovery',
        to: email,
      }));
      return {};
    });
  }

  /** resend: the sign-up confirmation or the email-change link again (`{}` either way). */
  @Post('auth/v1/resend')
  resend(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { body, email, redirectTo } = await this.emailRequest(ctx, req, 'resend', (b) => {
        if (b.type !== 'signup' && b.type !== 'email_change') {
          throw AuthErrors.validation('Missing one of these types: signup, email_change');
        }
      });
      // A confirmation for an unconfirmed address; the change link to the pending address.
      await this.linkForAccount(ctx, req, email, redirectTo, (user) => {
        if (body.type === 'signup') {
          return user.email_confirmed_at ? undefined : { kind: 'signup', to: email };
        }
        return user.email_change ? { kind: 'email_change', to: user.email_change } : undefined;
      });
      return {};
    });
  }

  /**
   * signInWithOtp: a magic link (and code) for a known address; for a new one a user is
   * created unless `create_user` is false, and sent a sign-up confirmation.
   */
  @Post('auth/v1/otp')
  otp(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { body, email, redirectTo } = await this.emailRequest(ctx, req, 'otp', (b) => {
        if (b.phone !== undefined) {
          throw new AuthError(400, 'phone_provider_disabled', 'Unsupported phone provider');
        }
        if (b.data !== undefined && !isObject(b.data)) {
          throw AuthErrors.validation('data must be an object');
        }
      });
      await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        let user: UserRow | undefined = await AuthStore.userByEmail(client, email);
        if (!user) {
          if (body.create_user === false) throw AuthErrors.otpDisabled();
          user = await AuthStore.createUser(client, {
            email,
            passwordHash: null,
            userMetadata: isObject(body.data) ? body.data : {},
            confirmed: false,
          });
        }
        await this.mailer.sendLink(ctx, client, {
          userId: user.id,
          kind: user.email_confirmed_at ? 'magiclink' : 'signup',
          to: email,
          redirectTo,
        });
      });
      return {};
    });
  }

  /** inviteUserByEmail (service key): a user without a password and an invite link. */
  @Post('auth/v1/invite')
  invite(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const body = bodyOf(req);
      const email = normalizeEmail(body.email);
      if (!email) throw AuthErrors.invalidEmail();
      const redirectTo = this.mailer.redirectFor(ctx, queryOf(req).redirect_to);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        const invited = await this.invitee(client, email, body.data);
        return this.mailer.sendLink(ctx, client, {
          userId: invited.id,
          kind: 'invite',
          to: email,
          redirectTo,
        });
      });
      return toAuthUser(user);
    });
  }

  /**
   * admin.generateLink (service key): makes the link without sending it, and answers the user
   * with `action_link`, `email_otp`, `hashed_token`, `redirect_to` and `verification_type`.
   */
  @Post('auth/v1/admin/generate_link')
  generateLink(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const body = bodyOf(req);
      const kind = own(LINK_TYPES, body.type);
      if (!kind) {
        throw AuthErrors.validation(`type must be one of ${Object.keys(LINK_TYPES).join(', ')}`);
      }
      const email = normalizeEmail(body.email);
      if (!email) throw AuthErrors.invalidEmail();
      const newEmail = kind === 'email_change' ? normalizeEmail(body.new_email) : undefined;
      if (kind === 'email_change' && !newEmail) {
        throw AuthErrors.validation('new_email is required for email change links');
      }
      if (body.data !== undefined && !isObject(body.data)) {
        throw AuthErrors.validation('data must be an object');
      }
      const passwordHash =
        kind === 'signup'
          ? await hashPassword(checkPassword(body.password, ctx.context.auth.passwordMinLength))
          : null;
      const redirectTo = this.mailer.redirectFor(
        ctx,
        body.redirect_to ?? body.redirectTo ?? queryOf(req).redirect_to,
      );
      const data = isObject(body.data) ? body.data : {};
      const { user, issued } = await this.db.withAuthAdmin(
        ctx,
        requestOf(req),
        async ({ client }) => {
          const existing = await AuthStore.userByEmail(client, email);
          let target: UserRow;
          if (kind === 'signup') {
            if (existing) throw AuthErrors.emailExists();
            target = await AuthStore.createUser(client, {
              email,
              passwordHash,
              userMetadata: data,
              confirmed: false,
            });
          } else if (kind === 'invite') {
            target = await this.invitee(client, email, data);
          } else if (kind === 'magiclink') {
            target =
              existing ??
              (await AuthStore.createUser(client, {
                email,
                passwordHash: null,
                userMetadata: data,
                confirmed: false,
              }));
          } else {
            if (!existing) throw AuthErrors.userNotFound();
            target = existing;
            if (kind === 'email_change') {
              target = await AuthStore.changeEmail(client, existing.id, newEmail!, 'pending');
            }
          }
          const token = await OneTimeTokens.issue(client, {
            userId: target.id,
            kind,
            email: newEmail ?? email,
            passwordHash: kind === 'signup' ? passwordHash : null,
          });
          const fresh = await AuthStore.userById(client, target.id);
          return { user: fresh ?? target, issued: token };
        },
      );
      return {
        ...toAuthUser(user),
        action_link: this.mailer.link(ctx, kind, issued.token, redirectTo),
        email_otp: issued.code,
        hashed_token: issued.token,
        redirect_to: redirectTo,
        verification_type: kind,
      };
    });
  }

  // ---------------------------------------------------------------------------------------

  /**
   * Emails the account of `email`, if there is one and `choose` names a link for it; nothing
   * otherwise, and the caller answers the same either way (no account enumeration).
   */
  private linkForAccount(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    email: string,
    redirectTo: string,
    choose: (user: UserRow) => { kind: EmailKind; to: string } | undefined,
  ): Promise<void> {
    return this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
      const user = await AuthStore.userByEmail(client, email);
      const link = user && choose(user);
      if (!user || !link) return;
      await this.mailer.sendLink(ctx, client, { userId: user.id, ...link, redirectTo });
    });
  }

  /**
   * The start of every request that sends an email: the per-IP limit, the body's own checks,
   * the address, the per-address interval, and where its link may lead.
   */
  private async emailRequest(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    action: string,
    check: (body: Body) => void = () => undefined,
  ): Promise<{ body: Body; email: string; redirectTo: string }> {
    await this.limiter.hit(ctx.ref, action, [`ip:${req.ip}`]);
    const body = bodyOf(req);
    check(body);
    const email = normalizeEmail(body.email);
    if (!email) throw AuthErrors.invalidEmail();
    await this.limiter.emailOnce(ctx.ref, email);
    return { body, email, redirectTo: this.mailer.redirectFor(ctx, queryOf(req).redirect_to) };
  }

  /**
   * Uses up a link token or a code and signs the user in: the address is confirmed (or, for
   * an email change, replaced). A wrong or used token is 403 `otp_expired`, reported after the
   * failed attempt is counted.
   */
  private async verify(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    input: { type: unknown; tokenHash?: unknown; email?: unknown; token?: unknown },
  ) {
    const kinds = own(VERIFY_TYPES, input.type);
    if (!kinds) {
      throw AuthErrors.validation(`type must be one of ${Object.keys(VERIFY_TYPES).join(', ')}`);
    }
    const tokenHash =
      typeof input.tokenHash === 'string' && input.tokenHash !== '' ? input.tokenHash : undefined;
    const email = normalizeEmail(input.email);
    const code = typeof input.token === 'string' ? input.token.trim() : undefined;
    if (!tokenHash && !(email && code)) {
      throw AuthErrors.validation('Verify requires either a token_hash, or an email and a token');
    }
    if (tokenHash && tokenHash.length > 200) throw AuthErrors.otpExpired();
    if (!tokenHash && !/^\d{6}$/.test(code!)) throw AuthErrors.otpExpired();
    const result = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
      const consumed: ConsumedToken | undefined = tokenHash
        ? await OneTimeTokens.consumeLink(client, tokenHash, kinds)
        : await OneTimeTokens.consumeCode(client, email!, code!, kinds);
      // Returned, not thrown: the counted failure must be committed.
      if (!consumed) return { failed: true as const };
      const user =
        consumed.kind === 'email_change'
          ? await AuthStore.changeEmail(client, consumed.userId, consumed.email, 'now')
          : await AuthStore.confirmEmail(client, consumed.userId, consumed.passwordHash);
      if (user.banned_until && user.banned_until > new Date()) return { banned: true as const };
      const session = await AuthStore.createSession(client, user.id, clientMeta(req));
      const signedIn = await AuthStore.updateUser(client, user.id, { signedIn: true });
      await AuthStore.audit(client, `verified_${consumed.kind}`, user.id, req.ip);
      return { user: signedIn, session, kind: consumed.kind };
    });
    if ('failed' in result) throw AuthErrors.otpExpired();
    if ('banned' in result) throw AuthErrors.userBanned();
    return sessionResponse(ctx, result.user, result.session, METHODS[result.kind]);
  }

  /** The user an invite is for: an unconfirmed one again, or a new one without a password. */
  private async invitee(
    client: Parameters<typeof AuthStore.userByEmail>[0],
    email: string,
    data: unknown,
  ): Promise<UserRow> {
    const existing = await AuthStore.userByEmail(client, email);
    if (existing?.email_confirmed_at) throw AuthErrors.emailExists();
    return (
      existing ??
      AuthStore.createUser(client, {
        email,
        passwordHash: null,
        userMetadata: isObject(data) ? data : {},
        confirmed: false,
        invited: true,
      })
    );
  }
}
