import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Job, JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Errors, isAppError } from '@baseplate/errors';
import {
  createProducerRedis,
  defaultJobOptions,
  type DeployFunctionResult,
  type FunctionsPayloads,
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

/** How often a request that waits for a job (a key rotation) reads its state. */
export const WAIT_POLL_MS = 100;

export interface JobProgress {
  state: string;
  failedReason?: string;
}

/**
 * Reads a job's state until it is done. Polling, not QueueEvents: an event stream opened
 * for the wait can miss a completion that lands while it connects, and the jobs waited on
 * here take a fraction of a second. Still running after `timeoutMs` is a 504; a failed job
 * a 500 with `failedMessage`, because the job's own reason can name databases, roles or SQL.
 */
export async function pollUntilFinished(
  read: () => Promise<JobProgress>,
  timeoutMs: number,
  failedMessage: string,
  pollMs = WAIT_POLL_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state, failedReason } = await read();
    if (state === 'completed') return;
    if (state === 'failed' || state === 'unknown') {
      throw Errors.internal(new Error(failedReason ?? `job is ${state}`), failedMessage);
    }
    if (Date.now() >= deadline) {
      throw Errors.timeout('The operation is still running; retry shortly');
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Deploys are waited on by their request: read the job's state this often. */
const DEPLOY_POLL_MS = 20;

/**
 * The control plane's side of the provisioning and functions queues: it adds jobs, the
 * worker runs them.
 * Every call answers within REDIS_DEADLINE_MS: while Redis is away, a request gets a 503
 * instead of waiting for it (the app also boots and serves accounts without Redis).
 */
@Injectable()
export class ProvisioningQueue implements OnModuleDestroy {
  private readonly logger = new Logger(ProvisioningQueue.name);
  private readonly redis: Redis;
  private readonly queue: Queue;
  private readonly functionsQueue: Queue;
  /** Connections currently failing, so an outage is logged once, not per reconnect attempt. */
  private readonly down = new Set<string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = createProducerRedis(config.redisUrl, { commandTimeout: REDIS_DEADLINE_MS });
    this.queue = new Queue(QUEUES.provisioning, {
      connection: this.redis,
      prefix: config.queuePrefix,
    });
    this.queue.on('error', this.outageReporter('producer', this.redis));
    this.functionsQueue = new Queue(QUEUES.functions, {
      connection: this.redis,
      prefix: config.queuePrefix,
    });
    this.functionsQueue.on('error', () => undefined);
  }

  /**
   * Runs a deploy on the worker and waits for its result (compile or load errors come back as
   * `ok: false`); still running after `timeoutMs` is a 504, a job that failed a 500.
   */
  async deployFunction(
    payload: FunctionsPayloads['deploy-function'],
    digest: string,
    timeoutMs: number,
  ): Promise<DeployFunctionResult> {
    const opts = defaultJobOptions({
      attempts: this.config.jobAttempts,
      backoffMs: this.config.jobBackoffMs,
    });
    const jobId = jobIds.deployFunction(payload.ref, payload.slug, payload.expectedVersion, digest);
    const job = await this.withRedis(() =>
      addOrRetry(this.functionsQueue, 'deploy-function', payload, { ...opts, jobId }),
    );
    let result: DeployFunctionResult | undefined;
    await pollUntilFinished(
      async () => {
        const state = await this.withRedis(() => job.getState());
        if (state !== 'completed' && state !== 'failed') return { state };
        // The result (or reason) is recorded on the job in Redis, read after its state: a copy
        // fetched before would not have it yet.
        const fresh = await this.withRedis(() => this.functionsQueue.getJob(job.id!));
        result = (fresh?.returnvalue ?? undefined) as DeployFunctionResult | undefined;
        return {
          state: state === 'completed' && !result ? 'unknown' : state,
          failedReason: fresh?.failedReason,
        };
      },
      timeoutMs,
      'The deploy failed; try again',
      DEPLOY_POLL_MS,
    );
    return result!;
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
  waitFor(job: Job, timeoutMs: number, failedMessage: string): Promise<void> {
    return pollUntilFinished(
      async () => {
        const state = await this.withRedis(() => job.getState());
        if (state !== 'failed') return { state };
        // The reason is recorded on the job in Redis, not on this copy of it.
        const fresh = await this.withRedis(() => this.queue.getJob(job.id!));
        return { state, failedReason: fresh?.failedReason };
      },
      timeoutMs,
      failedMessage,
    );
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
      Promise.all([this.queue.close(), this.functionsQueue.close()]),
      REDIS_DEADLINE_MS,
      () => new Error('Redis did not answer on close'),
    ).catch(() => undefined);
    this.redis.disconnect();
  }
}
