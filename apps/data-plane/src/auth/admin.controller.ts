import { Controller, Delete, Get, Post, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthErrors, AuthStore, checkPassword, normalizeEmail, toAuthUser } from '@baseplate/auth';
import { hashPassword, randomSecret } from '@baseplate/security';
import { ProjectCtx, ProjectDatabaseService, type ProjectRequestContext } from '../project-context';
import { admin, answer, bodyOf, isObject, queryOf, requestOf } from './auth-http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PER_PAGE_DEFAULT = 50;
const PER_PAGE_MAX = 1000;

/** A positive integer query value, or the default for a missing or empty one (`?page=`). */
function pageParam(value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw AuthErrors.validation('page and per_page must be positive integers');
  return Math.min(n, max);
}

/**
 * `/auth/v1/admin/users`: user management with the service key (supabase-js `auth.admin`).
 * Any other caller is 403 `not_admin`.
 */
@ApiExcludeController()
@Controller('auth/v1/admin/users')
export class AuthAdminController {
  constructor(private readonly db: ProjectDatabaseService) {}

  @Get()
  list(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const query = queryOf(req);
      const page = pageParam(query.page, 1, Number.MAX_SAFE_INTEGER);
      const perPage = pageParam(query.per_page, PER_PAGE_DEFAULT, PER_PAGE_MAX);
      const { users, total } = await this.db.withAuthAdmin(ctx, requestOf(req), ({ client }) =>
        AuthStore.listUsers(client, page, perPage),
      );
      // GoTrue's paging headers: supabase-js reads the total and the next/last pages.
      const last = Math.max(1, Math.ceil(total / perPage));
      const link = (p: number, rel: string) =>
        `</admin/users?page=${p}&per_page=${perPage}>; rel="${rel}"`;
      const links = [...(page < last ? [link(page + 1, 'next')] : []), link(last, 'last')];
      void reply.header('x-total-count', String(total)).header('link', links.join(', '));
      return { users: users.map(toAuthUser), aud: 'authenticated' };
    });
  }

  @Post()
  create(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const body = bodyOf(req);
      const email = normalizeEmail(body.email);
      if (!email) throw AuthErrors.invalidEmail();
      // No password: the user signs in by a link later; nobody can guess this one.
      const password =
        body.password === undefined
          ? randomSecret(32)
          : checkPassword(body.password, ctx.context.auth.passwordMinLength);
      const passwordHash = await hashPassword(password);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), async ({ client }) => {
        const created = await AuthStore.createUser(client, {
          email,
          passwordHash,
          userMetadata: isObject(body.user_metadata) ? body.user_metadata : {},
          confirmed: body.email_confirm === true,
        });
        if (!isObject(body.app_metadata)) return created;
        return AuthStore.adminUpdateUser(client, created.id, { appMetadata: body.app_metadata });
      });
      return toAuthUser(user);
    });
  }

  @Get(':id')
  get(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const id = userId(req);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), ({ client }) =>
        AuthStore.userById(client, id),
      );
      if (!user) throw AuthErrors.userNotFound();
      return toAuthUser(user);
    });
  }

  @Put(':id')
  update(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const id = userId(req);
      const body = bodyOf(req);
      const email = body.email === undefined ? undefined : normalizeEmail(body.email);
      if (body.email !== undefined && !email) {
        throw AuthErrors.invalidEmail();
      }
      const passwordHash =
        body.password === undefined
          ? undefined
          : await hashPassword(checkPassword(body.password, ctx.context.auth.passwordMinLength));
      const bannedUntil = banUntil(body.ban_duration);
      const user = await this.db.withAuthAdmin(ctx, requestOf(req), ({ client }) =>
        AuthStore.adminUpdateUser(client, id, {
          ...(email === undefined ? {} : { email }),
          ...(passwordHash === undefined ? {} : { passwordHash }),
          ...(body.email_confirm === true ? { confirm: true } : {}),
          ...(isObject(body.user_metadata) ? { userMetadata: body.user_metadata } : {}),
          ...(isObject(body.app_metadata) ? { appMetadata: body.app_metadata } : {}),
          ...(bannedUntil === undefined ? {} : { bannedUntil }),
        }),
      );
      return toAuthUser(user);
    });
  }

  @Delete(':id')
  remove(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      admin(ctx);
      const id = userId(req);
      const soft = bodyOf(req).should_soft_delete === true;
      await this.db.withAuthAdmin(ctx, requestOf(req), ({ client }) =>
        AuthStore.deleteUser(client, id, soft),
      );
      return {};
    });
  }
}

function userId(req: FastifyRequest): string {
  const id = (req.params as { id?: string }).id ?? '';
  // supabase-js checks ids are UUIDs first; anything else cannot name a user.
  if (!UUID.test(id)) throw AuthErrors.userNotFound();
  return id;
}

/** GoTrue's `ban_duration`: `none` lifts a ban; `24h`, `30m`, `90s` set one. */
function banUntil(value: unknown): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const match = typeof value === 'string' ? /^(\d{1,7})(h|m|s)$/.exec(value) : null;
  if (!match) throw AuthErrors.validation('ban_duration must be like 24h, 30m, 90s or none');
  const seconds = Number(match[1]) * { h: 3600, m: 60, s: 1 }[match[2] as 'h' | 'm' | 's'];
  return new Date(Date.now() + seconds * 1000);
}
