import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Job, JobsOptions, Queue, QueueEvents } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { AppError, Errors, isAppError } from '@baseplate/errors';
import {
  createProducerRedis,
  createRedis,
  defaultJobOptions,
  jobIds,
  ProvisioningJobName,
  ProvisioningPayloads,
  publishProjectInvalidation,
  QUEUES,
  whenReady,
} from '@baseplate/jobs';

/** How long a request waits on Redis before it answers 503 rather than hang. */
export const REDIS_DEADLINE_MS = 3_000;

const UNAVAILABLE_MESSAGE = 'The job queue is unavailable; try again shortly';

/** The part of a BullMQ Queue that addOrRetry needs. */
export type JobQueue = Pick<Queue, 'getJob' | 'add'>;

/**
 * Adds a job under its deterministic id, or runs again the failed job that holds the id.
 * BullMQ ignores an add whose id exists, and failed jobs are kept for days, so without
 * the retry one failure would block the operation (a rotation, a delete) until the job
 * ages out. The id is derived from the payload, so the retried job is the same work; it
 * gets its attempts back.
 */
export async function addOrRetry(
  queue: JobQueue,
  name: string,
  data: unknown,
  opts: JobsOptions & { jobId: string },
): Promise<Job> {
  const existing = await queue.getJob(opts.jobId);
  if (existing && (await existing.isFailed())) {
    try {
      await existing.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return existing;
    } catch {
      // A concurrent request retried it first, or it aged out in between: the add below
      // then finds the retried job (a no-op) or enqueues a fresh one.
    }
  }
  return queue.add(name, data, opts);
}

/** Rejects with `onExpiry()` unless `work` settles within `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number, onExpiry: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onExpiry()), Math.max(ms, 0));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * What a request that waited for a job answers when the wait ended badly: 504 while the
 * job still runs, 503 when Redis went away, else the job failed: a 500 with the caller's
 * `failedMessage`, because the job's own reason can name databases, roles or SQL.
 */
export function waitFailure(e: unknown, failedMessage: string, redisReady: boolean): AppError {
  if (isAppError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  // BullMQ's own wording for its ttl; a job's failedReason never starts with it.
  if (/^Job wait .* timed out before finishing/.test(message)) {
    return Errors.timeout('The operation is still running; retry shortly');
  }
  if (!redisReady) return Errors.unavailable(UNAVAILABLE_MESSAGE, { cause: e });
  return Errors.internal(e, failedMessage);
}

/**
 * The control plane's side of the provisioning queue: it adds jobs, the worker runs them.
 * Every call answers within REDIS_DEADLINE_MS: while Redis is away, a request gets a 503
 * instead of waiting for it (the app also boots and serves accounts without Redis).
 */
@Injectable()
export class ProvisioningQueue implements OnModuleDestroy {
  private readonly logger = new Logger(ProvisioningQueue.name);
  private readonly redis: Redis;
  private readonly queue: Queue;
  private events?: { listener: QueueEvents; connection: Redis };
  /** Connections currently failing, so an outage is logged once, not per reconnect attempt. */
  private readonly down = new Set<string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = createProducerRedis(config.redisUrl, { commandTimeout: REDIS_DEADLINE_MS });
    this.queue = new Queue(QUEUES.provisioning, {
      connection: this.redis,
      prefix: config.queuePrefix,
    });
    this.queue.on('error', this.outageReporter('producer', this.redis));
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

  /**
   * Waits for the worker to finish a job: still running after `timeoutMs` is a 504, a
   * failed job a 500 with `failedMessage` (safe to show), Redis away a 503.
   */
  async waitFor(job: Job, timeoutMs: number, failedMessage: string): Promise<void> {
    const listener = this.listener();
    await this.withRedis(() => listener.waitUntilReady());
    try {
      await job.waitUntilFinished(listener, timeoutMs);
    } catch (e) {
      throw waitFailure(e, failedMessage, this.redis.status === 'ready');
    }
  }

  /** Tells every data plane to drop what it cached for the project. */
  invalidate(ref: string): Promise<void> {
    return this.withRedis(() =>
      publishProjectInvalidation(this.redis, this.config.queuePrefix, ref),
    );
  }

  private add<N extends ProvisioningJobName>(
    name: N,
    payload: ProvisioningPayloads[N],
    jobId: string,
  ): Promise<Job> {
    const opts = defaultJobOptions({
      attempts: this.config.jobAttempts,
      backoffMs: this.config.jobBackoffMs,
    });
    return this.withRedis(() => addOrRetry(this.queue, name, payload, { ...opts, jobId }));
  }

  /**
   * Runs `op` only once Redis is ready and bounds it: BullMQ would otherwise hold a call
   * until Redis is back, and run it then, long after the request was answered.
   */
  private async withRedis<T>(op: () => Promise<T>): Promise<T> {
    const unavailable = () => Errors.unavailable(UNAVAILABLE_MESSAGE);
    const started = Date.now();
    if (!(await whenReady(this.redis, REDIS_DEADLINE_MS))) throw unavailable();
    try {
      return await withDeadline(op(), REDIS_DEADLINE_MS - (Date.now() - started), unavailable);
    } catch (e) {
      // A command that failed because the connection dropped is an outage, not a bug.
      if (!isAppError(e) && this.redis.status !== 'ready') {
        throw Errors.unavailable(UNAVAILABLE_MESSAGE, { cause: e });
      }
      throw e;
    }
  }

  private listener(): QueueEvents {
    if (!this.events) {
      // QueueEvents blocks on its connection, so it gets its own; BullMQ leaves closing it to us.
      const connection = createRedis(this.config.redisUrl);
      const listener = new QueueEvents(QUEUES.provisioning, {
        connection,
        prefix: this.config.queuePrefix,
      });
      listener.on('error', this.outageReporter('events', connection));
      this.events = { connection, listener };
    }
    return this.events.listener;
  }

  /** An error listener that logs the first error of an outage and, on `ready`, its end. */
  private outageReporter(what: string, connection: Redis): (e: Error) => void {
    connection.on('ready', () => {
      if (this.down.delete(what)) this.logger.log(`Redis (${what} connection) is reachable again`);
    });
    return (e) => {
      if (this.down.has(what)) return;
      this.down.add(what);
      this.logger.warn(
        `Redis (${what} connection) is unreachable: ${e.message}; job requests answer 503 meanwhile`,
      );
    };
  }

  async onModuleDestroy(): Promise<void> {
    // Closing talks to Redis; while it is away, shutdown must not wait for it.
    await withDeadline(
      Promise.allSettled([this.events?.listener.close(), this.queue.close()]),
      REDIS_DEADLINE_MS,
      () => new Error('Redis did not answer on close'),
    ).catch(() => undefined);
    this.events?.connection.disconnect();
    this.redis.disconnect();
  }
}
