import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { publishProjectInvalidation } from '@baseplate/jobs';
import { WorkerRedis } from '../worker-redis';

/** Tells every data plane to drop what it cached about a project. */
@Injectable()
export class ProjectEventsRepository {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: WorkerRedis,
  ) {}

  invalidate(ref: string): Promise<void> {
    return publishProjectInvalidation(this.redis.client, this.config.queuePrefix, ref);
  }
}
