import type { ContainerCreateOptions } from 'dockerode';
import { RUNNER_FILE_NAME } from '../runner/runner-file';
import type { FunctionLimits, FunctionRef } from '../runtime';
import { heapMb, MAX_OPEN_FILES, MIN_MEMORY_MB } from '../process/worker-command';

/** Where the runner directory (read-only) and the socket directory are mounted. */
export const CONTAINER_RUNNER_DIR = '/opt/baseplate';
export const CONTAINER_SOCKET_DIR = '/run/baseplate';
export const SOCKET_FILE_NAME = 'runner.sock';
export const LABEL_FUNCTION = 'io.baseplate.function';
export const LABEL_RUNTIME = 'io.baseplate.runtime';

export interface ContainerSpecInput {
  fn: FunctionRef;
  limits: FunctionLimits;
  image: string;
  network: string;
  /** `uid:gid`, never root. */
  user: string;
  /** Host directory holding runner.js (mounted read-only). */
  runnerDir: string;
  /** Host directory, owned by `user`, where the runner creates its socket. */
  socketDir: string;
  /** Identifies the runtime that owns the container (for the sweep at close). */
  runtimeId: string;
  /** Container name suffix, unique per container. */
  suffix: string;
  cpus: number;
  pidsLimit: number;
}

/**
 * One function version's container: Node with the same runner and permission flags as the
 * process driver, in HTTP mode on a unix socket, with a read-only root, no capabilities, no
 * privilege gain, a non-root user, and memory (no swap), CPU, pids and descriptor limits.
 */
export function containerSpec(i: ContainerSpecInput): ContainerCreateOptions {
  if (/^(root|0*)(:|$)/.test(i.user)) throw new Error('Function containers never run as root');
  const memoryBytes = Math.max(i.limits.memoryMb, MIN_MEMORY_MB) * 1024 * 1024;
  const runner = `${CONTAINER_RUNNER_DIR}/${RUNNER_FILE_NAME}`;
  return {
    name: `baseplate-fn-${i.fn.ref}-${i.fn.slug}-v${i.fn.version}-${i.suffix}`,
    Image: i.image,
    Entrypoint: ['node'],
    Cmd: [
      '--experimental-permission',
      `--allow-fs-read=${runner}`,
      `--max-old-space-size=${heapMb(i.limits.memoryMb)}`,
      '--no-warnings',
      runner,
      'http',
      `${CONTAINER_SOCKET_DIR}/${SOCKET_FILE_NAME}`,
    ],
    User: i.user,
    Env: [],
    WorkingDir: CONTAINER_RUNNER_DIR,
    Labels: {
      [LABEL_FUNCTION]: `${i.fn.ref}/${i.fn.slug}@${i.fn.version}`,
      [LABEL_RUNTIME]: i.runtimeId,
    },
    HostConfig: {
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      NanoCpus: Math.round(i.cpus * 1e9),
      PidsLimit: i.pidsLimit,
      Ulimits: [
        { Name: 'nofile', Soft: MAX_OPEN_FILES, Hard: MAX_OPEN_FILES },
        { Name: 'core', Soft: 0, Hard: 0 },
      ],
      NetworkMode: i.network,
      IpcMode: 'private',
      Binds: [
        `${i.runnerDir}:${CONTAINER_RUNNER_DIR}:ro`,
        `${i.socketDir}:${CONTAINER_SOCKET_DIR}:rw`,
      ],
      RestartPolicy: { Name: 'no' },
      AutoRemove: false,
    },
  };
}
