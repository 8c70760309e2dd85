/**
 * `npm start`: the whole platform with one command. Resolves PostgreSQL, Redis and the
 * master key (starting embedded ones when none is given), migrates, runs the three apps
 * with their output prefixed, and prints where to find them once they answer.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AppConfig, ConfigError, loadConfig } from '@baseplate/config';
import { migrateAll } from '@baseplate/database';
import { DevEnvironment, findRepoRoot, resolveDevEnvironment } from '@baseplate/dev-services';

const APPS = ['control-plane', 'data-plane', 'worker'] as const;
type AppName = (typeof APPS)[number];

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;
const root = findRepoRoot(__dirname);
const entrypoint = (app: AppName): string => join(root, 'dist', 'apps', app, 'src', 'main.js');

const children = new Map<AppName, ChildProcess>();
let services: DevEnvironment | undefined;
let stopping = false;

const say = (line: string): void => console.log(`[start] ${line}`);

/** Forwards a child's output line by line, each line tagged with the app's name. */
function forward(app: AppName, child: ChildProcess): void {
  const tag = `${app.padEnd(13)} |`;
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
      out.write(`${tag} ${line}\n`),
    );
  }
}

function spawnApp(app: AppName, env: NodeJS.ProcessEnv): void {
  // Own process group: a Ctrl-C reaches only this supervisor, which stops the apps once
  // each (a second signal would cut short NestJS's shutdown hooks), then the services.
  const child = spawn(process.execPath, [entrypoint(app)], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.set(app, child);
  forward(app, child);
  const unexpected = (why: string): void => {
    if (stopping) return;
    console.error(`[start] ${app} ${why}; stopping everything`);
    void shutdown(1);
  };
  child.once('error', (e) => unexpected(`could not start: ${e.message}`));
  child.once('exit', (code, signal) => unexpected(`exited (${signal ?? `code ${code}`})`));
}

/** Signals the child's whole process group (an app's own helpers go with it). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (children.size) say('stopping the apps');
  await Promise.all([...children.values()].map(stopChild));
  if (services) await services.stop();
  process.exit(code);
}

// Whatever happens, detached apps must not outlive this process.
process.on('exit', () => children.forEach((child) => signalGroup(child, 'SIGKILL')));

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) {
      console.error('[start] second signal: killing everything');
      process.exit(1);
    }
    void shutdown(0);
  });
}

/** Where this machine reaches a server listening on HOST (0.0.0.0 means every interface). */
function localBase(config: AppConfig, port: number): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function answers(url: string, ok: (status: number) => boolean): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return ok(res.status);
  } catch {
    return false;
  }
}

/** Resolves once the control plane serves its docs and the data plane reports healthy. */
async function waitUntilReady(config: AppConfig): Promise<boolean> {
  const probes = [
    // Any non-5xx answer proves the control plane is listening and routing.
    { port: config.controlPlanePort, path: '/docs-json', ok: (s: number) => s < 500 },
    { port: config.dataPlanePort, path: '/health', ok: (s: number) => s >= 200 && s < 300 },
  ].filter((p) => p.port !== 0); // port 0 is picked by the OS: nothing to probe
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && !stopping) {
    const results = await Promise.all(
      probes.map((p) => answers(`${localBase(config, p.port)}${p.path}`, p.ok)),
    );
    if (results.every(Boolean)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function printBanner(config: AppConfig): void {
  const lines = [
    '',
    'Baseplate is running',
    `  Control plane   ${config.controlPlaneUrl}`,
    `  API docs        ${config.controlPlaneUrl}/docs`,
    `  {base_url}      ${config.publicUrl}   (data plane; projects at {base_url}/projects/<ref>)`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** The parsed config, or undefined after printing the one line that says what is wrong. */
function validConfig(env: NodeJS.ProcessEnv): AppConfig | undefined {
  try {
    return loadConfig(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(e.message);
    return undefined;
  }
}

async function main(): Promise<void> {
  const missing = APPS.filter((app) => !existsSync(entrypoint(app)));
  if (missing.length) {
    console.error(`[start] ${missing.join(', ')} not built: run npm run build (npm start does)`);
    process.exit(1);
  }
  // Every other setting is checked before anything starts; the resolved three are
  // stand-ins here and are checked for real below.
  const early = {
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL || 'postgres://check/x',
    MASTER_KEY: process.env.MASTER_KEY || '0'.repeat(64),
  };
  if (!validConfig(early)) return process.exit(1);
  services = await resolveDevEnvironment({ root, redis: true, log: say });
  services.summary.forEach(say);
  const env = { ...process.env, ...services.env };
  const config = validConfig(env);
  if (!config) return shutdown(1);
  const applied = await migrateAll(config);
  const count = applied.control.length + applied.template.length;
  say(
    count
      ? `migrations applied: ${[...applied.control.map((f) => `control/${f}`), ...applied.template.map((f) => `project/${f}`)].join(', ')}`
      : 'migrations: up to date',
  );
  APPS.forEach((app) => spawnApp(app, env));
  if (await waitUntilReady(config)) {
    printBanner(config);
  } else if (!stopping) {
    console.error(`[start] the apps did not answer within ${READY_TIMEOUT_MS / 1000} s; stopping`);
    await shutdown(1);
  }
}

main().catch(async (e: unknown) => {
  // Only the message: a stack or config dump could carry a connection string.
  console.error(`[start] failed: ${e instanceof Error ? e.message : String(e)}`);
  await shutdown(1);
});
