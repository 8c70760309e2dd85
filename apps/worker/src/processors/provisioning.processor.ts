import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { ProvisioningPayloads } from '@baseplate/jobs';
import { errorMessage, ProjectProvisioner } from '../provisioning/project-provisioner.service';
import { WorkerRedis } from '../worker-redis';
import { jobDecorator } from './job-handlers';
import { QueueProcessor } from './queue-processor';

const OnProvisioningJob = jobDecorator<ProvisioningPayloads>();

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
  extends QueueProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    redis: WorkerRedis,
    private readonly provisioner: ProjectProvisioner,
  ) {
    super('provisioning', CONCURRENCY, config, redis);
  }

  protected override onWorker(worker: Worker): void {
    // Results are outcome words and counts, never secrets, so they are safe to log.
    worker.on('completed', (job, result) =>
      this.logger.log(`${job.name} ${job.id}: ${JSON.stringify(result)}`),
    );
    worker.on('failed', (job, error) => void this.onFailed(job, error));
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
