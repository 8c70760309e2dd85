import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import type { AppConfig } from '@baseplate/config';
import { JOB_NAMES, type QueueName } from '@baseplate/jobs';
import type { WorkerRedis } from '../worker-redis';
import { JobHandler, resolveHandlers } from './job-handlers';

/** A job killed mid-run this many times is failed instead of retried once more. */
const MAX_STALLED_COUNT = 3;

/**
 * What every queue's processor shares: its handlers resolved at init (the boot fails if a job
 * name has none, or two), a BullMQ Worker started at bootstrap with the platform's lock and
 * stall settings, and a graceful close. Subclasses declare handlers with their queue's
 * decorator and may listen to the worker's events in `onWorker`.
 */
export abstract class QueueProcessor {
  protected readonly logger: Logger;
  private handlers = new Map<string, JobHandler>();
  protected worker?: Worker;

  protected constructor(
    private readonly queue: QueueName,
    private readonly concurrency: number,
    protected readonly config: AppConfig,
    private readonly redis: WorkerRedis,
  ) {
    this.logger = new Logger(new.target.name);
  }

  onModuleInit(): void {
    this.handlers = resolveHandlers(this.queue, this, JOB_NAMES[this.queue]);
  }

  onApplicationBootstrap(): void {
    this.worker = new Worker(this.queue, (job) => this.dispatch(job), {
      connection: this.redis.client,
      prefix: this.config.queuePrefix,
      concurrency: this.concurrency,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.jobLockMs,
      maxStalledCount: MAX_STALLED_COUNT,
    });
    this.worker.on('error', (error) => this.logger.error(`${this.queue} worker: ${error.message}`));
    this.onWorker(this.worker);
  }

  /** Lets running jobs finish (graceful stop) before the Redis connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  /** Hook for event listeners (completed, failed) of the subclass. */
  protected onWorker(_worker: Worker): void {}

  private async dispatch(job: Job): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new UnrecoverableError(`No handler for job "${job.name}"`);
    return handler(job);
  }
}
