import type { SpawnOptions } from 'node:child_process';
import { dirname } from 'node:path';

/** Below this Node itself does not start reliably (about 48 MB of data segment at boot). */
export const MIN_MEMORY_MB = 64;
export const MAX_OPEN_FILES = 256;

export interface WorkerCommandOptions {
  nodePath: string;
  /** Absolute real path of runner.js. */
  runnerPath: string;
  memoryMb: number;
  /** util-linux prlimit; without it (not Linux) only the V8 heap is capped. */
  prlimitPath?: string;
  /** Run the worker as this uid and gid (only possible when the platform is root). */
  uid?: number;
  /** NODE_EXTRA_CA_CERTS of the platform: read by Node at boot, scrubbed by the runner. */
  extraCaCerts?: string;
}

export interface WorkerCommand {
  file: string;
  args: string[];
  options: SpawnOptions;
}

/** The V8 old-space cap: half the worker's memory, the rest for Node, buffers and code. */
export function heapMb(memoryMb: number): number {
  return Math.max(16, Math.floor(Math.max(memoryMb, MIN_MEMORY_MB) / 2));
}

/**
 * How a process worker is started. Each flag is a wall: the permission model with read access
 * to the runner file only (and no --allow-child-process / -worker / -addons / -wasi, no write
 * access at all); an empty environment; `prlimit --data` caps heap and off-heap memory (the heap
 * flag alone lets Buffers grow unbounded), `--nofile` the descriptors, `--core=0` keeps a heap
 * abort from writing a core file; the uid drop keeps signals and root-owned unix sockets out of
 * reach; `detached` gives the worker its own process group, killed as a whole.
 */
export function workerCommand(o: WorkerCommandOptions): WorkerCommand {
  const memoryMb = Math.max(o.memoryMb, MIN_MEMORY_MB);
  const node = [
    '--experimental-permission',
    `--allow-fs-read=${o.runnerPath}`,
    `--max-old-space-size=${heapMb(memoryMb)}`,
    '--no-warnings',
    o.runnerPath,
    'ipc',
  ];
  const env: NodeJS.ProcessEnv = o.extraCaCerts ? { NODE_EXTRA_CA_CERTS: o.extraCaCerts } : {};
  const options: SpawnOptions = {
    env,
    cwd: dirname(o.runnerPath),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
    detached: true,
    ...(o.uid !== undefined ? { uid: o.uid, gid: o.uid } : {}),
  };
  if (!o.prlimitPath) return { file: o.nodePath, args: node, options };
  const limits = [`--data=${memoryMb * 1024 * 1024}`, `--nofile=${MAX_OPEN_FILES}`, '--core=0'];
  return { file: o.prlimitPath, args: [...limits, o.nodePath, ...node], options };
}
