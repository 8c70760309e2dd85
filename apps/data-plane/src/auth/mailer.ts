import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import type { PoolClient } from 'pg';
import {
  AuthError,
  AuthErrors,
  AuthStore,
  type EmailKind,
  type IssuedOneTimeToken,
  OneTimeTokens,
  renderAuthEmail,
  safeRedirect,
  type UserRow,
} from '@baseplate/auth';
import {
  createProducerRedis,
  emailJobOptions,
  type EmailPayloads,
  QUEUES,
  whenReady,
} from '@baseplate/jobs';
import type { ProjectRequestContext } from '../project-context';

const REDIS_DEADLINE_MS = 1000;

/**
 * The data plane's side of auth email: builds the verify link and the message, and hands it to
 * the worker on the `email` queue (which sends it by SMTP or captures it). Nothing here logs a
 * link or a code.
 */
@Injectable()
export class AuthMailer implements OnModuleDestroy {
  private readonly redis: Redis;
  private readonly queue: Queue;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectPinoLogger(AuthMailer.name) private readonly logger: PinoLogger,
  ) {
    this.redis = createProducerRedis(config.redisUrl, { commandTimeout: REDIS_DEADLINE_MS });
    this.redis.on('error', () => undefined);
    this.queue = new Queue(QUEUES.email, { connection: this.redis, prefix: config.queuePrefix });
    this.queue.on('error', () => undefined);
  }

  /** Where the link may lead after verification: `redirect_to` if the project allows it. */
  redirectFor(ctx: ProjectRequestContext, requested: unknown): string {
    const { siteUrl, uriAllowList } = ctx.context.auth;
    return safeRedirect(requested, siteUrl, uriAllowList);
  }

  /** `{PUBLIC_URL}/projects/<ref>/auth/v1/verify?token=&type=&redirect_to=` */
  link(ctx: ProjectRequestContext, kind: EmailKind, token: string, redirectTo: string): string {
    const url = new URL(
      `${this.config.publicUrl.replace(/\/$/, '')}/projects/${ctx.ref}/auth/v1/verify`,
    );
    url.searchParams.set('token', token);
    url.searchParams.set('type', kind);
    url.searchParams.set('redirect_to', redirectTo);
    return url.toString();
  }

  /**
   * A new one-time token of `kind` for the user, emailed to `to`, inside the caller's
   * transaction; answers the user as it now is (its `*_sent_at` stamped).
   */
  async sendLink(
    ctx: ProjectRequestContext,
    client: Pick<PoolClient, 'query'>,
    input: {
      userId: string;
      kind: EmailKind;
      to: string;
      redirectTo: string;
      /** A sign-up's password, applied when the link is followed. */
      passwordHash?: string;
    },
  ): Promise<UserRow> {
    const issued = await OneTimeTokens.issue(client, {
      userId: input.userId,
      kind: input.kind,
      email: input.to,
      passwordHash: input.passwordHash ?? null,
    });
    await this.send(ctx, { kind: input.kind, to: input.to, issued, redirectTo: input.redirectTo });
    const user = await AuthStore.userById(client, input.userId);
    if (!user) throw AuthErrors.userNotFound();
    return user;
  }

  /**
   * Queues the email. Called inside the transaction that stored the token, so a queue that
   * cannot be reached rolls the token (and a new user) back: the caller may simply retry.
   */
  async send(
    ctx: ProjectRequestContext,
    input: { kind: EmailKind; to: string; issued: IssuedOneTimeToken; redirectTo: string },
  ): Promise<void> {
    const link = this.link(ctx, input.kind, input.issued.token, input.redirectTo);
    const rendered = renderAuthEmail(input.kind, { link, code: input.issued.code });
    const payload: EmailPayloads['send-email'] = {
      ref: ctx.ref,
      message: { kind: input.kind, to: input.to, ...rendered },
    };
    try {
      if (!(await whenReady(this.redis, REDIS_DEADLINE_MS))) throw new Error('Redis not ready');
      await this.queue.add(
        'send-email',
        payload,
        emailJobOptions({ attempts: this.config.jobAttempts, backoffMs: this.config.jobBackoffMs }),
      );
    } catch (err) {
      this.logger.error({ err, ref: ctx.ref, kind: input.kind }, 'Auth email not queued');
      throw new AuthError(503, 'email_send_failed', 'Error sending email: try again shortly');
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}
