import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { defaultJobOptions, jobIds, ProvisioningPayloads, QUEUES } from '@baseplate/jobs';
import { WorkerRedis } from '../worker-redis';
import { ProjectDatabaseRepository } from './project-database.repository';

/**
 * Enqueues upgrade-projects at worker start. The job id is the digest of the project
 * migrations, so every worker of one release asks for the same job and it runs once.
 */
@Injectable()
export class ProvisioningQueueService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ProvisioningQueueService.name);
  private queue?: Queue<ProvisioningPayloads['upgrade-projects']>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: WorkerRedis,
    private readonly databases: ProjectDatabaseRepository,
  ) {}

  /** Not in the constructor: a boot refused by the handler check must not touch Redis. */
  async onApplicationBootstrap(): Promise<void> {
    this.queue = new Queue(QUEUES.provisioning, {
      connection: this.redis.client,
      prefix: this.config.queuePrefix,
    });
    await this.enqueueUpgrade(this.queue);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.queue?.close();
  }

  private async enqueueUpgrade(
    queue: Queue<ProvisioningPayloads['upgrade-projects']>,
  ): Promise<void> {
    const digest = this.databases.migrationDigest();
    const jobId = jobIds.upgradeProjects(digest);
    const existing = await queue.getJob(jobId);
    // Adding an id that is kept as failed is a no-op in BullMQ; a restart should try again.
    if (existing && (await existing.isFailed())) {
      await existing.retry('failed', { resetAttemptsMade: true });
      this.logger.log(`upgrade-projects ${digest}: retrying the failed run`);
      return;
    }
    const options = defaultJobOptions({
      attempts: this.config.jobAttempts,
      backoffMs: this.config.jobBackoffMs,
    });
    await queue.add('upgrade-projects', { digest }, { ...options, jobId });
  }
}
