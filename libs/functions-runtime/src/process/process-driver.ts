import type { PoolOptions, PoolWorker, WorkerHooks } from '../pool';
import { PooledFunctionRuntime, type WorkerDriver } from '../pooled-runtime';
import { RunnerFile } from '../runner/runner-file';
import type { DeployInput, FunctionRuntime } from '../runtime';
import { ProcessWorker } from './process-worker';
import { workerCommand } from './worker-command';

export interface ProcessRuntimeOptions {
  /** Workers run as this uid and gid when the platform runs as root. */
  uid: number;
  maxWorkers: number;
  idleMs: number;
  recycleAfter: number;
  /**
   * util-linux prlimit, for the memory and descriptor caps. null runs workers without them
   * (platforms without prlimit, such as macOS); undefined on Linux refuses to start workers.
   */
  prlimitPath: string | null | undefined;
  /** Passed to workers so HTTPS fetch trusts the same extra CAs as the platform. */
  extraCaCerts?: string;
  /** Where the runner directory is created (default: the OS temp dir). */
  tmpDir?: string;
  /** Spawn to ready; generous because a loaded machine can be slow to start Node. */
  startTimeoutMs?: number;
}

/** The embedded driver: warm child Node processes per function version (see worker-command). */
export class ProcessWorkerDriver implements WorkerDriver {
  private readonly runner: RunnerFile;
  /** Root drops to the configured uid; anyone else already is unprivileged. */
  private readonly uid: number | undefined;

  constructor(private readonly options: ProcessRuntimeOptions) {
    this.runner = new RunnerFile(options.tmpDir);
    this.uid = process.getuid?.() === 0 ? options.uid : undefined;
  }

  createWorker(input: DeployInput, hooks: WorkerHooks): PoolWorker {
    if (this.options.prlimitPath === undefined) {
      throw new Error('prlimit (util-linux) is needed to cap the memory of function workers');
    }
    const command = workerCommand({
      nodePath: process.execPath,
      runnerPath: this.runner.path,
      memoryMb: input.limits.memoryMb,
      prlimitPath: this.options.prlimitPath ?? undefined,
      uid: this.uid,
      extraCaCerts: this.options.extraCaCerts,
    });
    return new ProcessWorker({
      command,
      code: input.code,
      limits: input.limits,
      startTimeoutMs: this.options.startTimeoutMs ?? 10_000,
      hooks,
    });
  }

  poolOptions(input: DeployInput): PoolOptions {
    return {
      maxWorkers: this.options.maxWorkers,
      idleMs: this.options.idleMs,
      recycleAfter: this.options.recycleAfter,
      maxConcurrency: input.limits.maxConcurrency,
    };
  }

  async close(): Promise<void> {
    this.runner.remove();
  }
}

export function createProcessRuntime(options: ProcessRuntimeOptions): FunctionRuntime {
  return new PooledFunctionRuntime(new ProcessWorkerDriver(options));
}
