import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { createRedis } from '@baseplate/jobs';

/**
 * The worker's one shared Redis connection (queues, workers, pub/sub publishing).
 * BullMQ leaves a connection it was given open, so it is closed here, after every
 * worker and queue has closed in `beforeApplicationShutdown`.
 */
@Injectable()
export class WorkerRedis implements OnApplicationShutdown {
  readonly client: Redis;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = createRedis(config.redisUrl);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

@Global()
@Module({ providers: [WorkerRedis], exports: [WorkerRedis] })
export class WorkerRedisModule {}
