import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { EmailPayloads } from '@baseplate/jobs';
import { jobDecorator } from '../processors/job-handlers';
import { QueueProcessor } from '../processors/queue-processor';
import { WorkerRedis } from '../worker-redis';
import { DeliveryResult, Mailer } from './mailer.service';

const OnEmailJob = jobDecorator<EmailPayloads>();

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
  extends QueueProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    redis: WorkerRedis,
    private readonly mailer: Mailer,
  ) {
    super('email', CONCURRENCY, config, redis);
  }

  protected override onWorker(worker: Worker): void {
    // A DeliveryResult names the project, the kind and the outcome: safe to log.
    worker.on('completed', (job, result: DeliveryResult) =>
      this.logger.log(`${job.name} ${job.id}: ${result.kind} for ${result.ref} ${result.outcome}`),
    );
    // Mailer's errors carry codes only, never the message, its links or credentials.
    worker.on('failed', (job, error) => {
      if (!job) return;
      const { ref, message } = (job.data ?? {}) as Partial<EmailPayloads['send-email']>;
      this.logger.warn(
        `${job.name} ${job.id} (${word(message?.kind)} for ${word(ref)}) failed ` +
          `(attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1}): ${error.message}`,
      );
    });
  }

  @OnEmailJob('send-email')
  sendEmail(job: Job<EmailPayloads['send-email']>): Promise<DeliveryResult> {
    return this.mailer.deliver(job.data);
  }
}
