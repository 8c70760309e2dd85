import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Docker from 'dockerode';
import {
  createDockerRuntime,
  type DockerApi,
  type DockerRuntimeOptions,
  FunctionLoadError,
  type FunctionRuntime,
} from '@baseplate/functions-runtime';
import { Deployer, localServer, okValue } from './helpers';
import { LocalEngine } from './local-engine';

const TEST_IMAGE = 'baseplate-fn-test:20';

/** Whether a Docker engine answers (DOCKER_HOST or the default socket), asked synchronously. */
function probeEngine(): { ok: true } | { ok: false; reason: string } {
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      `new (require('dockerode'))().ping().then(() => process.exit(0),
         (e) => { process.stderr.write(e.message); process.exit(1); })`,
    ],
    { cwd: join(__dirname, '../../..'), timeout: 5_000, encoding: 'utf8' },
  );
  if (r.status === 0) return { ok: true };
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  return { ok: false, reason: `no Docker engine at ${where}: ${r.stderr?.trim() || r.error}` };
}

function runtimeOptions(docker: DockerApi, network: string): DockerRuntimeOptions {
  return { docker, image: TEST_IMAGE, network, uid: 65534, idleMs: 60_000, recycleAfter: 10_000 };
}

const LIMITS = { timeoutMs: 1_000, memoryMb: 128, maxPayloadBytes: 64 * 1024, maxConcurrency: 4 };

/** The same behaviours on both engines. */
function driverBehaviour(make: () => FunctionRuntime): void {
  let runtime: FunctionRuntime;
  let fns: Deployer;

  beforeAll(() => {
    runtime = make();
    fns = new Deployer(runtime);
  });
  afterAll(() => runtime.close());

  it('runs a handler with console capture, as a non-root user with no environment', async () => {
    const fn = await fns.deploy(
      'hello',
      `exports.default = async (p) => {
         console.log('hello', p.name);
         return { uid: process.getuid(), env: process.env, hash: require('crypto').createHash('sha1').update(p.name).digest('hex').length };
       };`,
      LIMITS,
    );
    const o = await runtime.invoke(fn, { name: 'docker' });
    expect(okValue(o)).toEqual({ uid: 65534, env: {}, hash: 40 });
    expect(o.logs.map((l) => l.message)).toEqual(['hello docker']);
  });

  it('refuses fs and child_process, and reports load errors', async () => {
    const fn = await fns.deploy(
      'refused',
      `module.exports = async () => {
         const out = [];
         for (const m of ['fs', 'child_process']) { try { require(m); out.push('ALLOWED'); } catch (e) { out.push(e.message); } }
         return out;
       };`,
      LIMITS,
    );
    for (const m of okValue(await runtime.invoke(fn, {})) as string[]) {
      expect(m).toContain('Cannot require');
    }
    await expect(fns.deploy('broken', `throw new Error('at load')`, LIMITS)).rejects.toBeInstanceOf(
      FunctionLoadError,
    );
    await expect(
      fns.deploy('slow-load', `for (;;);`, { ...LIMITS, timeoutMs: 300 }),
    ).rejects.toThrow('Loading took longer than 300 ms');
  });

  it('kills a call at the timeout, then serves the next one', async () => {
    const fn = await fns.deploy(
      'spin',
      `module.exports = (p) => { if (p.spin) for (;;); return 'served'; }`,
      { ...LIMITS, timeoutMs: 500 },
    );
    expect(await runtime.invoke(fn, { spin: true })).toMatchObject({ status: 'timeout' });
    expect(okValue(await runtime.invoke(fn, {}))).toBe('served');
  });

  it('refuses results over maxPayloadBytes', async () => {
    const fn = await fns.deploy('big', `module.exports = () => 'x'.repeat(5000)`, {
      ...LIMITS,
      maxPayloadBytes: 1000,
    });
    expect(await runtime.invoke(fn, {})).toMatchObject({ status: 'bad_result' });
  });
}

describe('docker function runtime: the runner in HTTP mode as local processes (no engine)', () => {
  driverBehaviour(() => createDockerRuntime(runtimeOptions(new LocalEngine(), 'none')));
});

const engine = probeEngine();
if (!engine.ok)
  console.log(`docker-runtime.int-spec: real-engine tests skipped (${engine.reason})`);
const withEngine = engine.ok ? describe : describe.skip;

withEngine(
  `docker function runtime on a real engine${engine.ok ? '' : ` (SKIPPED: ${engine.reason})`}`,
  () => {
    const docker = new Docker();
    let rootfs: string;

    beforeAll(async () => {
      rootfs = buildRootfs();
      const tar = spawnSync('tar', ['-C', rootfs, '-c', '.'], { maxBuffer: 1 << 30 }).stdout;
      const { Readable } = await import('node:stream');
      const stream = await docker.importImage(Readable.from([tar]), {
        repo: TEST_IMAGE.split(':')[0],
        tag: TEST_IMAGE.split(':')[1],
        changes: ['ENV PATH=/usr/local/bin:/usr/bin:/bin'],
      });
      await new Promise((resolve, reject) =>
        docker.modem.followProgress(stream, (e: Error | null) => (e ? reject(e) : resolve(null))),
      );
    }, 120_000);

    afterAll(() => rmSync(rootfs, { recursive: true, force: true }));

    describe('network none', () => {
      driverBehaviour(() =>
        createDockerRuntime(runtimeOptions(docker as unknown as DockerApi, 'none')),
      );
    });

    describe('memory and network (host)', () => {
      let runtime: FunctionRuntime;
      let fns: Deployer;
      beforeAll(() => {
        runtime = createDockerRuntime(runtimeOptions(docker as unknown as DockerApi, 'host'));
        fns = new Deployer(runtime);
      });
      afterAll(() => runtime.close());

      it('contains a Buffer bomb; the next call is served', async () => {
        const fn = await fns.deploy(
          'bomb',
          `module.exports = (p) => {
             if (!p.bomb) return 'served';
             const a = []; for (let i = 0; i < 100; i++) a.push(Buffer.alloc(50 * 1024 * 1024, 1));
           };`,
          { ...LIMITS, timeoutMs: 10_000 },
        );
        expect(['crashed', 'error']).toContain((await runtime.invoke(fn, { bomb: true })).status);
        expect(okValue(await runtime.invoke(fn, {}))).toBe('served');
      });

      it('fetches a server on the host', async () => {
        const { url, server } = await localServer();
        try {
          const fn = await fns.deploy(
            'fetch',
            `module.exports = async (p) => (await fetch(p.url)).json()`,
            LIMITS,
          );
          expect(okValue(await runtime.invoke(fn, { url }))).toMatchObject({
            hello: 'from the platform',
          });
        } finally {
          server.close();
        }
      });

      it('leaves no container behind after close()', async () => {
        await runtime.close();
        const left = await docker.listContainers({
          all: true,
          filters: { label: ['io.baseplate.function'] },
        });
        expect(left.filter((c) => c.Image === TEST_IMAGE)).toEqual([]);
      });
    });
  },
);

/** A minimal root filesystem: the node binary, the libraries ldd names, nothing else. */
function buildRootfs(): string {
  const root = mkdtempSync(join(tmpdir(), 'bp-fn-rootfs-'));
  const put = (file: string, at = file) => {
    mkdirSync(join(root, dirname(at)), { recursive: true });
    copyFileSync(file, join(root, at));
  };
  put(process.execPath, '/usr/local/bin/node');
  const ldd = execFileSync('ldd', [process.execPath], { encoding: 'utf8' });
  for (const m of ldd.matchAll(/(\/\S+) \(0x/g)) put(m[1]!);
  return root;
}
