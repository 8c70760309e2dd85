import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue, QueueEvents } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Errors } from '@baseplate/errors';
import {
  createRedis,
  defaultJobOptions,
  jobIds,
  ProvisioningJobName,
  ProvisioningPayloads,
  publishProjectInvalidation,
  QUEUES,
} from '@baseplate/jobs';

/** The control plane's side of the provisioning queue: it adds jobs, the worker runs them. */
@Injectable()
export class ProvisioningQueue implements OnModuleDestroy {
  private readonly redis: Redis;
  private readonly queue: Queue;
  private events?: { listener: QueueEvents; connection: Redis };

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = createRedis(config.redisUrl);
    this.queue = new Queue(QUEUES.provisioning, {
      connection: this.redis,
      prefix: config.queuePrefix,
    });
  }

  createProject(ref: string): Promise<Job> {
    return this.add('create-project', { ref }, jobIds.createProject(ref));
  }

  deleteProject(ref: string): Promise<Job> {
    return this.add('delete-project', { ref }, jobIds.deleteProject(ref));
  }

  rotateKeys(ref: string, keysVersion: number): Promise<Job> {
    return this.add('rotate-keys', { ref, keysVersion }, jobIds.rotateKeys(ref, keysVersion));
  }

  /** Waits for the worker to finish a job; a job still running after `timeoutMs` is a 504. */
  async waitFor(job: Job, timeoutMs: number): Promise<void> {
    if (!this.events) {
      // QueueEvents blocks on its connection, so it gets its own; BullMQ leaves closing it to us.
      const connection = createRedis(this.config.redisUrl);
      this.events = {
        connection,
        listener: new QueueEvents(QUEUES.provisioning, {
          connection,
          prefix: this.config.queuePrefix,
        }),
      };
    }
    await this.events.listener.waitUntilReady();
    try {
      await job.waitUntilFinished(this.events.listener, timeoutMs);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/timed out/i.test(message))
        throw Errors.timeout('The operation is still running; retry shortly');
      throw e;
    }
  }

  /** Tells every data plane to drop what it cached for the project. */
  invalidate(ref: string): Promise<void> {
    return publishProjectInvalidation(this.redis, this.config.queuePrefix, ref);
  }

  private add<N extends ProvisioningJobName>(
    name: N,
    payload: ProvisioningPayloads[N],
    jobId: string,
  ): Promise<Job> {
    return this.queue.add(name, payload, {
      ...defaultJobOptions({
        attempts: this.config.jobAttempts,
        backoffMs: this.config.jobBackoffMs,
      }),
      jobId,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.events?.listener.close();
    this.events?.connection.disconnect();
    await this.queue.close();
    this.redis.disconnect();
  }
}
