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
import { JOB_NAMES, ProvisioningPayloads, QUEUES } from '@baseplate/jobs';
import { errorMessage, ProjectProvisioner } from '../provisioning/project-provisioner.service';
import { WorkerRedis } from '../worker-redis';
import { jobDecorator, JobHandler, resolveHandlers } from './job-handlers';

const OnProvisioningJob = jobDecorator<ProvisioningPayloads>();

/** A job killed mid-run this many times is failed instead of retried once more. */
const MAX_STALLED_COUNT = 3;
/**
 * Jobs are serialised per project (an advisory lock), so a few at once are safe, and one
 * slow upgrade-projects run does not hold every create-project behind it.
 */
const CONCURRENCY = 4;

const allowedAttempts = (job: Job): number => job.opts.attempts ?? 1;
/** While the handler runs, attemptsMade counts the earlier, failed attempts only. */
const isLastAttempt = (job: Job): boolean => job.attemptsMade + 1 >= allowedAttempts(job);
/**
 * In the `failed` event BullMQ has counted this attempt already. An UnrecoverableError
 * (a job past the stall limit) ends the job before its attempts run out.
 */
const isFinalFailure = (job: Job, error: Error): boolean =>
  error.name === UnrecoverableError.name || job.attemptsMade >= allowedAttempts(job);

/** The `provisioning` queue: one method per job; the rules live in ProjectProvisioner. */
@Injectable()
export class ProvisioningProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(ProvisioningProcessor.name);
  private handlers = new Map<string, JobHandler>();
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: WorkerRedis,
    private readonly provisioner: ProjectProvisioner,
  ) {}

  /** Fails the boot before anything is consumed if a job name has no handler, or two. */
  onModuleInit(): void {
    this.handlers = resolveHandlers(QUEUES.provisioning, this, JOB_NAMES.provisioning);
  }

  onApplicationBootstrap(): void {
    this.worker = new Worker(QUEUES.provisioning, (job) => this.dispatch(job), {
      connection: this.redis.client,
      prefix: this.config.queuePrefix,
      concurrency: CONCURRENCY,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.jobLockMs,
      maxStalledCount: MAX_STALLED_COUNT,
    });
    // Results are outcome words and counts, never secrets, so they are safe to log.
    this.worker.on('completed', (job, result) =>
      this.logger.log(`${job.name} ${job.id}: ${JSON.stringify(result)}`),
    );
    this.worker.on('failed', (job, error) => void this.onFailed(job, error));
    this.worker.on('error', (error) => this.logger.error(`provisioning worker: ${error.message}`));
  }

  /** Lets running jobs finish (graceful stop) before the Redis connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  @OnProvisioningJob('create-project')
  async createProject(job: Job<ProvisioningPayloads['create-project']>): Promise<unknown> {
    try {
      return await this.provisioner.createProject(job.data.ref, (p) => job.updateProgress(p));
    } catch (e) {
      // Marked here, not only in the `failed` event, so a crash right after the last
      // attempt's failure cannot leave the project COMING_UP forever.
      if (isLastAttempt(job)) await this.provisioner.createProjectFailed(job.data.ref, e);
      throw e;
    }
  }

  @OnProvisioningJob('delete-project')
  deleteProject(job: Job<ProvisioningPayloads['delete-project']>): Promise<unknown> {
    return this.provisioner.deleteProject(job.data.ref);
  }

  @OnProvisioningJob('rotate-keys')
  rotateKeys(job: Job<ProvisioningPayloads['rotate-keys']>): Promise<unknown> {
    return this.provisioner.rotateKeys(job.data.ref, job.data.keysVersion);
  }

  @OnProvisioningJob('upgrade-projects')
  upgradeProjects(job: Job<ProvisioningPayloads['upgrade-projects']>): Promise<unknown> {
    return this.provisioner.upgradeProjects(job.data.digest);
  }

  private async dispatch(job: Job): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new UnrecoverableError(`No handler for job "${job.name}"`);
    return handler(job);
  }

  private async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job) return;
    this.logger.warn(
      `${job.name} ${job.id} failed (attempt ${job.attemptsMade} of ${allowedAttempts(job)}): ${error.message}`,
    );
    if (job.name !== 'create-project' || !isFinalFailure(job, error)) return;
    const { ref } = job.data as ProvisioningPayloads['create-project'];
    await this.provisioner
      .createProjectFailed(ref, error)
      .catch((e: unknown) =>
        this.logger.error(`${ref}: could not record INIT_FAILED: ${errorMessage(e)}`),
      );
  }
}
