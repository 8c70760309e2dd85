import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { Strategy as LocalStrategy } from 'passport-local';
import { Errors } from '@baseplate/errors';
import { IS_PUBLIC } from '../common/public.decorator';
import { AuthenticatedAccount } from '../common/current-account.decorator';
import { AccountsService } from './accounts.service';

/** POST /v1/login: email + password against the argon2id hash. */
@Injectable()
export class PasswordStrategy extends PassportStrategy(LocalStrategy, 'password') {
  constructor(private readonly accounts: AccountsService) {
    super({ usernameField: 'email', passwordField: 'password' });
  }

  validate(email: string, password: string): Promise<AuthenticatedAccount> {
    return this.accounts.verifyCredentials(email, password);
  }
}

/** The token of an `Authorization: Bearer <token>` header, parsed as passport-http-bearer does. */
function headerToken(req: Request): string | undefined {
  const parts = req.headers.authorization?.split(' ') ?? [];
  return parts.length === 2 && /^Bearer$/i.test(parts[0]!) ? parts[1] : undefined;
}

/** Every other /v1 route: `Authorization: Bearer <login JWT or personal token>`. */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(BearerStrategy, 'access-token') {
  constructor(private readonly accounts: AccountsService) {
    super({ passReqToCallback: true });
  }

  async validate(req: Request, token: string): Promise<AuthenticatedAccount> {
    // passport-http-bearer also takes `?access_token=` and a body field; URLs end up in
    // access logs, proxies and browser history, so only the header is accepted.
    if (token !== headerToken(req))
      throw Errors.unauthorized('Send the token as Authorization: Bearer');
    const account = await this.accounts.authenticate(token);
    if (!account) throw Errors.unauthorized('Missing or invalid access token');
    return account;
  }
}

/**
 * Guards run before pipes, so the login guard checks the body's shape itself: a missing
 * field is a 400, not passport-local's bare 401.
 */
@Injectable()
export class PasswordGuard extends AuthGuard('password') {
  override canActivate(context: ExecutionContext) {
    const body: unknown = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const b = (body ?? {}) as Record<string, unknown>;
    const missing = ['email', 'password'].filter((k) => typeof b[k] !== 'string' || b[k] === '');
    if (missing.length)
      throw Errors.validation(missing.map((k) => `${k} must be a non-empty string`));
    return super.canActivate(context);
  }
}

/** Global guard: Bearer required unless the route is @Public(). */
@Injectable()
export class AccessTokenGuard extends AuthGuard('access-token') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    return isPublic ? true : super.canActivate(context);
  }
}
