import { transform } from 'esbuild';
import {
  FunctionLoadError,
  FunctionNotDeployedError,
  type FunctionRef,
  type FunctionRuntime,
} from '@baseplate/functions-runtime';
import { Deployer, isAlive, localServer, okValue, processRuntime } from './helpers';

/**
 * The process driver with real child processes: what handler code can and cannot do (the
 * spec's runtime table), handler forms, load errors, versions. Limits and the pool are in
 * process-runtime-limits.int-spec.ts.
 */
describe('process function runtime: sandbox', () => {
  let runtime: FunctionRuntime;
  let fns: Deployer;
  let server: Awaited<ReturnType<typeof localServer>>;
  /** One function that runs the probe it is given, so the table costs one worker. */
  let probe: FunctionRef;

  beforeAll(async () => {
    runtime = processRuntime();
    fns = new Deployer(runtime);
    server = await localServer();
    probe = await fns.deploy(
      'probe',
      `module.exports = async ({ src }) => {
         try { return { ok: true, value: await eval(src) }; }
         catch (e) { return { ok: false, error: String(e && e.message), code: e && e.code }; }
       };`,
    );
  });

  afterAll(async () => {
    await runtime.close();
    server.server.close();
  });

  /** Runs `src` (an expression, awaited) inside the probe function. */
  async function run(src: string): Promise<{ ok: boolean; value?: unknown; error?: string }> {
    return okValue(await runtime.invoke(probe, { src })) as { ok: boolean; value?: unknown };
  }

  describe('allowed', () => {
    it('fetch() to a local HTTP server', async () => {
      const r = await run(`fetch(${JSON.stringify(server.url + '/x')}).then((r) => r.json())`);
      expect(r).toEqual({ ok: true, value: { hello: 'from the platform', path: '/x' } });
    });

    it.each([
      ['crypto', `require('crypto').createHash('sha256').update('a').digest('hex').slice(0, 8)`],
      ['node:crypto randomUUID', `require('node:crypto').randomUUID().length`],
      [
        'web crypto',
        `crypto.subtle.digest('SHA-256', new Uint8Array([1])).then((d) => d.byteLength)`,
      ],
      ['buffer', `require('buffer').Buffer.from('hi').toString('base64')`],
      ['url', `new (require('url').URL)('https://x.test/a?b=1').searchParams.get('b')`],
      ['zlib', `require('zlib').gunzipSync(require('zlib').gzipSync('z')).toString()`],
      ['TextEncoder', `new TextEncoder().encode('é').length`],
    ])('%s', async (_name, src) => {
      const r = await run(src);
      expect(r.ok).toBe(true);
    });

    it('sees an empty process.env', async () => {
      expect(await run('process.env')).toEqual({ ok: true, value: {} });
    });

    it('runs as an unprivileged uid', async () => {
      const r = await run('[process.getuid(), process.getgid(), process.getgroups()]');
      expect(r.value).toEqual([65534, 65534, [65534]]);
    });
  });

  describe('refused', () => {
    it.each([
      ['fs', `require('fs')`],
      ['node:fs', `require('node:fs')`],
      ['child_process', `require('child_process')`],
      ['an npm package', `require('some-npm-package')`],
      ['a relative file', `require('./runner.js')`],
    ])('require of %s', async (_name, src) => {
      const r = await run(src);
      expect(r).toMatchObject({ ok: false, error: expect.stringContaining('Cannot require') });
    });

    const PASSWD = [
      ['fs', `require('fs').readFileSync('/etc/passwd', 'utf8')`],
      ['process.binding', `process.binding('fs')`],
      ['fetch file:', `fetch('file:///etc/passwd').then((r) => r.text())`],
      ['dynamic import', `import('node:fs').then((m) => m.readFileSync('/etc/passwd', 'utf8'))`],
      [
        'escape, then getBuiltinModule',
        `fetch.constructor('return process')().getBuiltinModule('fs').readFileSync('/etc/passwd', 'utf8')`,
      ],
      [
        'escape, then mainModule',
        `fetch.constructor('return process')().mainModule.require('fs').readFileSync('/etc/passwd')`,
      ],
      [
        'escape, then import',
        `fetch.constructor('return import("node:fs")')().then((m) => m.readFileSync('/etc/passwd'))`,
      ],
    ];
    it.each(PASSWD)('reading /etc/passwd via %s', async (_name, src) => {
      const r = await run(src);
      expect(r.ok).toBe(false);
      expect(JSON.stringify(r)).not.toContain('root:x');
    });

    it.each([
      ['require', `require('child_process').execSync('id')`],
      ['process.binding', `process.binding('spawn_sync')`],
      ['escape', `fetch.constructor('return process')().getBuiltinModule('child_process')`],
    ])('child processes via %s', async (_name, src) => {
      const r = await run(src);
      expect(r.ok === false || r.value === undefined || r.value === null).toBe(true);
    });

    it('signals to the platform (process.kill(process.ppid))', async () => {
      const r = await run('process.kill(process.ppid, "SIGKILL")');
      expect(r).toMatchObject({ ok: false, code: 'EPERM' });
      expect(isAlive(process.pid)).toBe(true);
    });

    it("signals to another function's worker (they share the uid)", async () => {
      const other = await fns.deploy('victim', `module.exports = () => process.pid`);
      const pid = okValue(await runtime.invoke(other, {})) as number;
      const r = await run(`process.kill(${pid}, 'SIGKILL')`);
      expect(r).toMatchObject({ ok: false, code: 'EPERM' });
      expect(okValue(await runtime.invoke(other, {}))).toBe(pid);
    });

    it('native addons', async () => {
      const r = await run(`process.dlopen({ exports: {} }, '/tmp/x.node')`);
      expect(r.ok).toBe(false);
    });
  });

  describe('handler forms', () => {
    it.each([
      ['module.exports', `module.exports = async (p) => ({ got: p.n })`],
      ['exports.handler', `exports.handler = async (p) => ({ got: p.n })`],
      ['exports.default', `exports.default = (p) => ({ got: p.n })`],
    ])('%s', async (_form, code) => {
      const fn = await fns.deploy('form', code);
      expect(okValue(await runtime.invoke(fn, { n: 7 }))).toEqual({ got: 7 });
    });

    it("esbuild's CommonJS output of `export default`", async () => {
      const { code } = await transform(
        `import { createHash } from 'node:crypto';
         export default async function (p: { s: string }) {
           return createHash('sha1').update(p.s).digest('hex').length;
         }`,
        { loader: 'ts', format: 'cjs', platform: 'node', target: 'node20' },
      );
      const fn = await fns.deploy('esm', code);
      expect(okValue(await runtime.invoke(fn, { s: 'x' }))).toBe(40);
    });

    it.each([
      ['no handler', `exports.nothing = 1`, /no handler/],
      ['a syntax error', `module.exports = async (p) => { return p +; }`, /SyntaxError/],
      [
        'a throw at load',
        `throw new Error('config missing'); module.exports = () => 1`,
        /config missing/,
      ],
      [
        'a require at load',
        `const fs = require('fs'); module.exports = () => 1`,
        /Cannot require 'fs'/,
      ],
    ])('refuses code with %s (FunctionLoadError)', async (_what, code, message) => {
      const deploy = fns.deploy('broken', code);
      await expect(deploy).rejects.toBeInstanceOf(FunctionLoadError);
      await expect(deploy).rejects.toThrow(message);
    });

    it('refuses code whose top level runs past timeoutMs (FunctionLoadError)', async () => {
      const deploy = fns.deploy('slow-load', `for (;;); module.exports = () => 1`, {
        timeoutMs: 300,
      });
      await expect(deploy).rejects.toBeInstanceOf(FunctionLoadError);
      await expect(deploy).rejects.toThrow('longer than 300 ms');
    });

    it('reports a throw or a rejection as error with its message', async () => {
      const fn = await fns.deploy(
        'throws',
        `module.exports = async (p) => { throw new Error('nope ' + p.n) }`,
      );
      expect(await runtime.invoke(fn, { n: 1 })).toMatchObject({
        status: 'error',
        message: 'nope 1',
      });
      const fn2 = await fns.deploy(
        'rejects',
        `module.exports = () => Promise.reject('plain string')`,
      );
      expect(await runtime.invoke(fn2, {})).toMatchObject({
        status: 'error',
        message: 'plain string',
      });
    });
  });

  describe('versions', () => {
    it('a new version replaces the old one and its process', async () => {
      const v1 = await fns.deploy(
        'versioned',
        `module.exports = () => ({ v: 1, pid: process.pid })`,
      );
      const first = okValue(await runtime.invoke(v1, {})) as { pid: number };
      const v2 = await fns.deploy(
        'versioned',
        `module.exports = () => ({ v: 2, pid: process.pid })`,
      );
      expect(runtime.has(v1)).toBe(false);
      expect(runtime.has(v2)).toBe(true);
      await expect(runtime.invoke(v1, {})).rejects.toBeInstanceOf(FunctionNotDeployedError);
      expect(okValue(await runtime.invoke(v2, {}))).toMatchObject({ v: 2 });
      await waitForDeath(first.pid);
    });

    it('a failed deploy leaves the previous version serving', async () => {
      const v1 = await fns.deploy('keeps', `module.exports = () => 'old'`);
      await expect(fns.deploy('keeps', `throw new Error('bad')`)).rejects.toThrow('bad');
      expect(okValue(await runtime.invoke(v1, {}))).toBe('old');
    });

    it('deploying the loaded version again is a no-op', async () => {
      const fn = await fns.deploy('same', `module.exports = () => process.pid`);
      const pid = okValue(await runtime.invoke(fn, {}));
      await runtime.deploy({ ...fn, code: 'module.exports = () => 0', limits: { ...LIMITS_STUB } });
      expect(okValue(await runtime.invoke(fn, {}))).toBe(pid);
    });

    it('remove() stops the processes of a function', async () => {
      const fn = await fns.deploy('removed', `module.exports = () => process.pid`);
      const pid = okValue(await runtime.invoke(fn, {})) as number;
      await runtime.remove(fn.ref, fn.slug);
      expect(runtime.has(fn)).toBe(false);
      expect(isAlive(pid)).toBe(false);
      expect(Object.keys(runtime.stats().workers)).not.toContain(`${fn.ref}/removed@${fn.version}`);
    });
  });
});

const LIMITS_STUB = { timeoutMs: 1_000, memoryMb: 128, maxPayloadBytes: 1024, maxConcurrency: 1 };

async function waitForDeath(pid: number): Promise<void> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  expect(isAlive(pid)).toBe(false);
}
