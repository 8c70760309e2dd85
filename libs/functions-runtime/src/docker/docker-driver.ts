import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PoolOptions, PoolWorker, WorkerHooks } from '../pool';
import { PooledFunctionRuntime, type WorkerDriver } from '../pooled-runtime';
import { RunnerFile } from '../runner/runner-file';
import type { DeployInput, FunctionRuntime } from '../runtime';
import { containerSpec, LABEL_RUNTIME, SOCKET_FILE_NAME } from './container-spec';
import { ContainerWorker, type DockerApi } from './container-worker';
import { RunnerClient } from './runner-client';

export interface DockerRuntimeOptions {
  docker: DockerApi;
  image: string;
  network: string;
  /** Containers run as this uid and gid when the platform runs as root. */
  uid: number;
  idleMs: number;
  recycleAfter: number;
  cpus?: number;
  pidsLimit?: number;
  /** Host directory for the runner and the sockets; the engine must see the same paths. */
  tmpDir?: string;
  /** Create and start to the runner's answer (an engine is slower than a fork). */
  startTimeoutMs?: number;
}

/**
 * One container per function version (the pool keeps at most one), reached over a unix socket
 * in a directory only the container user and the platform can enter.
 */
export class DockerWorkerDriver implements WorkerDriver {
  readonly runtimeId = randomBytes(6).toString('hex');
  private readonly runner: RunnerFile;
  private readonly user: { uid: number; gid: number };
  private socketsDir: string | undefined;
  private nextDir = 1;

  constructor(private readonly options: DockerRuntimeOptions) {
    this.runner = new RunnerFile(options.tmpDir);
    const root = process.getuid?.() === 0;
    this.user = root
      ? { uid: options.uid, gid: options.uid }
      : { uid: process.getuid?.() ?? options.uid, gid: process.getgid?.() ?? options.uid };
  }

  createWorker(input: DeployInput, hooks: WorkerHooks): PoolWorker {
    const socketDir = this.newSocketDir();
    const spec = containerSpec({
      fn: input,
      limits: input.limits,
      image: this.options.image,
      network: this.options.network,
      user: `${this.user.uid}:${this.user.gid}`,
      runnerDir: this.runner.directory,
      socketDir,
      runtimeId: this.runtimeId,
      suffix: randomBytes(4).toString('hex'),
      cpus: this.options.cpus ?? 1,
      pidsLimit: this.options.pidsLimit ?? 64,
    });
    return new ContainerWorker({
      docker: this.options.docker,
      spec,
      client: new RunnerClient(join(socketDir, SOCKET_FILE_NAME), input.limits),
      code: input.code,
      limits: input.limits,
      startTimeoutMs: this.options.startTimeoutMs ?? 30_000,
      hooks,
      cleanup: () => rmSync(socketDir, { recursive: true, force: true }),
    });
  }

  poolOptions(input: DeployInput): PoolOptions {
    return {
      maxWorkers: 1,
      idleMs: this.options.idleMs,
      recycleAfter: this.options.recycleAfter,
      maxConcurrency: input.limits.maxConcurrency,
    };
  }

  /** Containers this runtime left behind (a close that raced a start), then its directories. */
  async close(): Promise<void> {
    const filters = { label: [`${LABEL_RUNTIME}=${this.runtimeId}`] };
    const left = await this.options.docker.listContainers({ all: true, filters }).catch(() => []);
    await Promise.all(
      left.map((c) =>
        this.options.docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined),
      ),
    );
    if (this.socketsDir) rmSync(this.socketsDir, { recursive: true, force: true });
    this.socketsDir = undefined;
    this.runner.remove();
  }

  /**
   * <sockets>/<n>, owned by the container user, inside a 0700 directory of the platform's: other
   * local users (function processes of the process driver share the uid) cannot reach it.
   */
  private newSocketDir(): string {
    this.socketsDir ??= realpathSync(
      mkdtempSync(join(this.options.tmpDir ?? tmpdir(), 'baseplate-fn-sockets-')),
    );
    const dir = join(this.socketsDir, String(this.nextDir++));
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    if (process.getuid?.() === 0) chownSync(dir, this.user.uid, this.user.gid);
    return dir;
  }
}

export function createDockerRuntime(options: DockerRuntimeOptions): FunctionRuntime {
  return new PooledFunctionRuntime(new DockerWorkerDriver(options));
}
