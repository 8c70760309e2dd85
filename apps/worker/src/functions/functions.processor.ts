import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import type { DeployFunctionResult, FunctionsPayloads } from '@baseplate/jobs';
import { jobDecorator } from '../processors/job-handlers';
import { QueueProcessor } from '../processors/queue-processor';
import { WorkerRedis } from '../worker-redis';
import { FunctionDeployer } from './function-deployer.service';

const OnFunctionsJob = jobDecorator<FunctionsPayloads>();

/** Deploys compile and start a process each: a couple at once keeps both cores busy. */
const CONCURRENCY = 2;

/** The `functions` queue: deploys, waited on by the control plane's request. */
@Injectable()
export class FunctionsProcessor
  extends QueueProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    redis: WorkerRedis,
    private readonly deployer: FunctionDeployer,
  ) {
    super('functions', CONCURRENCY, config, redis);
  }

  protected override onWorker(worker: Worker): void {
    // Results name the outcome and version; compile errors quote the user's own source only.
    worker.on('completed', (job, result: DeployFunctionResult) =>
      this.logger.log(
        `${job.name} ${job.id}: ${result.ok ? `version ${result.version}` : result.reason}`,
      ),
    );
    worker.on('failed', (job, error) => {
      if (job)
        this.logger.warn(
          `${job.name} ${job.id} failed (attempt ${job.attemptsMade}): ${error.message}`,
        );
    });
  }

  @OnFunctionsJob('deploy-function')
  deploy(job: Job<FunctionsPayloads['deploy-function']>): Promise<DeployFunctionResult> {
    return this.deployer.deploy(job.data);
  }
}
