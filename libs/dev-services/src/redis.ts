import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { findFreePort } from './ports';
import { describeRedisUrl } from './redact';
import { isAlive, isOrphaned, readPidFile, stopPid, writeOwner } from './stale-process';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_SPAWNED_REDIS_PORT = 6380;

const INSTALL_HINT =
  'install Redis (apt-get install redis-server / brew install redis) or set REDIS_URL';

/** The one line printed when no Redis can be found or started. */
export function redisUnavailableMessage(probed: string | false, spawnTried: boolean): string {
  const where = probed ? `Redis is not answering at ${describeRedisUrl(probed)}` : 'No Redis given';
  return spawnTried
    ? `${where} and redis-server is not on the PATH: ${INSTALL_HINT}`
    : `${where}: start it, ${INSTALL_HINT}`;
}

export interface EnsureRedisOptions {
  /** A Redis the caller chose (REDIS_URL): used as given, nothing is probed or started. */
  url?: string;
  /** Data directory of a spawned redis-server (it persists nothing; the pid file lives here). */
  dataDir?: string;
  /** Where to look for a running Redis first; false skips the probe. */
  probeUrl?: string | false;
  /** Start `redis-server` from the PATH when the probe fails (default true). */
  spawn?: boolean;
  /** Preferred port of a spawned redis-server; a free one if taken. */
  port?: number;
  log?: (line: string) => void;
}

export interface RedisHandle {
  url: string;
  /** 'given', 'running' (found by the probe) or 'spawned'. */
  source: 'given' | 'running' | 'spawned';
  stop(): Promise<void>;
}

/**
 * Sends an inline PING and resolves true on `+PONG`. Raw RESP keeps the probe free of a
 * client's reconnect logic; a Redis that requires AUTH answers -NOAUTH and counts as
 * absent (it must then be given as REDIS_URL with its password).
 */
export function pingRedis(url: string, timeoutMs = 300): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = new Socket();
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.connect(Number(port || 6379), hostname.replace(/^\[|\]$/g, ''), () => {
      socket.write('PING\r\n');
    });
  });
}

/** Arguments of a throw-away redis-server: loopback only, nothing written to disk. */
export const redisServerArgs = (port: number, dir: string): string[] => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--dir',
  dir,
  '--pidfile',
  join(dir, 'redis.pid'),
];

async function stopLeftoverRedis(dir: string, log: (line: string) => void): Promise<void> {
  const pid = readPidFile(join(dir, 'redis.pid'));
  if (pid === undefined || !isAlive(pid)) return;
  if (!isOrphaned(pid, readPidFile(join(dir, 'redis.owner')))) return; // another live run's
  log(`stopping redis-server left running by an earlier run (pid ${pid})`);
  await stopPid(pid, 'SIGTERM', 5000);
}

async function spawnRedis(
  dir: string,
  preferredPort: number,
  probed: string | false,
  log: (line: string) => void,
): Promise<RedisHandle> {
  mkdirSync(dir, { recursive: true });
  await stopLeftoverRedis(dir, log);
  const port = await findFreePort(preferredPort);
  const url = `redis://127.0.0.1:${port}`;
  // Own process group: a Ctrl-C in the terminal reaches only our supervisor, which stops
  // Redis after the apps that use it.
  const child = spawn('redis-server', redisServerArgs(port, dir), {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-2000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<NodeJS.ErrnoException | number | null>((r) => {
    child.once('error', r);
    child.once('exit', r);
  });
  const deadline = Date.now() + 5000;
  for (;;) {
    const outcome = await Promise.race([exited, new Promise((r) => setTimeout(r, 20, 'wait'))]);
    if (outcome !== 'wait') {
      if ((outcome as NodeJS.ErrnoException)?.code === 'ENOENT') {
        throw new Error(redisUnavailableMessage(probed, true));
      }
      const why = output.trim().split('\n').pop() ?? `exit ${String(outcome)}`;
      throw new Error(`redis-server exited at start on port ${port}: ${why.trim()}`);
    }
    if (await pingRedis(url, 200)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING on port ${port} within 5 s`);
    }
  }
  writeOwner(join(dir, 'redis.owner'));
  // If Node exits without stop() (an uncaught error), the server must not outlive it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await stopChild(child);
  };
  return { url, source: 'spawned', stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}

/**
 * The Redis to use: the given URL; else one already answering at the probe URL
 * (127.0.0.1:6379); else a `redis-server` from the PATH on a port of its own. Fails with
 * one line saying how to get Redis.
 */
export async function ensureRedis(options: EnsureRedisOptions = {}): Promise<RedisHandle> {
  const noop = async (): Promise<void> => undefined;
  if (options.url) return { url: options.url, source: 'given', stop: noop };
  const probeUrl = options.probeUrl ?? DEFAULT_REDIS_URL;
  if (probeUrl && (await pingRedis(probeUrl)))
    return { url: probeUrl, source: 'running', stop: noop };
  if (options.spawn === false) throw new Error(redisUnavailableMessage(probeUrl, false));
  const dir = resolve(options.dataDir ?? '.data/redis');
  const port = options.port ?? DEFAULT_SPAWNED_REDIS_PORT;
  return spawnRedis(dir, port, probeUrl, options.log ?? (() => undefined));
}
