import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { EmailPayloads, JOB_NAMES, QUEUES } from '@baseplate/jobs';
import { jobDecorator, JobHandler, resolveHandlers } from '../processors/job-handlers';
import { WorkerRedis } from '../worker-redis';
import { DeliveryResult, Mailer } from './mailer.service';

const OnEmailJob = jobDecorator<EmailPayloads>();

/** A job killed mid-run this many times is failed instead of retried once more. */
const MAX_STALLED_COUNT = 3;
/** Deliveries wait on remote SMTP servers, not on this host: several run at once. */
const CONCURRENCY = 8;

/** A payload field fit for a log line (a malformed job's could hold anything). */
const word = (value: unknown): string =>
  typeof value === 'string' && /^[a-z0-9_]{1,32}$/.test(value) ? value : '?';

/**
 * The `email` queue. Jobs carry messages with live one-time links, so nothing here logs
 * a payload: only the job, the project, the kind and the outcome.
 */
@Injectable()
export class EmailProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(EmailProcessor.name);
  private handlers = new Map<string, JobHandler>();
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: WorkerRedis,
    private readonly mailer: Mailer,
  ) {}

  /** Fails the boot before anything is consumed if a job name has no handler, or two. */
  onModuleInit(): void {
    this.handlers = resolveHandlers(QUEUES.email, this, JOB_NAMES.email);
  }

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUES.email, (job) => this.dispatch(job), {
      connection: this.redis.client,
      prefix: this.config.queuePrefix,
      concurrency: CONCURRENCY,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.jobLockMs,
      maxStalledCount: MAX_STALLED_COUNT,
    });
    // A DeliveryResult names the project, the kind and the outcome: safe to log.
    this.worker.on('completed', (job, result: DeliveryResult) =>
      this.logger.log(`${job.name} ${job.id}: ${result.kind} for ${result.ref} ${result.outcome}`),
    );
    // Mailer's errors carry codes only, never the message, its links or credentials.
    this.worker.on('failed', (job, error) => {
      if (!job) return;
      const { ref, message } = (job.data ?? {}) as Partial<EmailPayloads['send-email']>;
      this.logger.warn(
        `${job.name} ${job.id} (${word(message?.kind)} for ${word(ref)}) failed ` +
          `(attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1}): ${error.message}`,
      );
    });
    this.worker.on('error', (error) => this.logger.error(`email worker: ${error.message}`));
  }

  /** Lets running deliveries finish (graceful stop) before the Redis connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  @OnEmailJob('send-email')
  sendEmail(job: Job<EmailPayloads['send-email']>): Promise<DeliveryResult> {
    return this.mailer.deliver(job.data);
  }

  private async dispatch(job: Job): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new UnrecoverableError(`No handler for job "${job.name}"`);
    return handler(job);
  }
}
