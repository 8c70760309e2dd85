import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { createRedis, subscribeProjectInvalidation } from '@baseplate/jobs';
import { ProjectContextCache } from './project-context.cache';
import { ProjectDatabaseService } from './project-database.service';

// A data plane that cannot hear invalidations would keep honouring rotated keys until the
// TTL runs out, so it refuses to start rather than run deaf.
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/**
 * Listens on Redis for project invalidations (keys rotated, project deleted): the project's
 * cached context is dropped and its pools closed, so the very next request re-reads it.
 * After a reconnect every context is dropped, as messages may have been missed.
 */
@Injectable()
export class ProjectInvalidationListener implements OnModuleInit, OnModuleDestroy {
  private redis?: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly contexts: ProjectContextCache,
    private readonly databases: ProjectDatabaseService,
    @InjectPinoLogger(ProjectInvalidationListener.name) private readonly logger: PinoLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    // Subscriber connections cannot run other commands: this one is dedicated.
    const redis = createRedis(this.config.redisUrl, {
      connectionName: `${this.config.queuePrefix}:data-plane-invalidation`,
    });
    this.redis = redis;
    redis.on('error', (err: Error) => this.logger.warn({ err }, 'Invalidation subscriber error'));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Redis (REDIS_URL) did not accept the invalidation subscription within ${SUBSCRIBE_TIMEOUT_MS} ms`,
            ),
          ),
        SUBSCRIBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        subscribeProjectInvalidation(
          redis,
          this.config.queuePrefix,
          (ref) => this.invalidate(ref),
          () => this.invalidateAll(),
        ),
        timeout,
      ]);
    } catch (e) {
      redis.disconnect();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  invalidate(ref: string): void {
    this.contexts.invalidate(ref);
    this.databases.closeProject(ref);
  }

  private invalidateAll(): void {
    this.logger.info('Invalidation subscriber reconnected: dropping every cached project context');
    this.contexts.invalidateAll();
  }

  async onModuleDestroy(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    if (!redis) return;
    await redis.quit().catch(() => redis.disconnect());
  }
}
