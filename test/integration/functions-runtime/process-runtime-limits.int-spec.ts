import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { TEST_MASTER_KEY } from '@baseplate/testing';
import { loadConfig } from '@baseplate/config';
import { createFunctionRuntime, type FunctionRuntime } from '@baseplate/functions-runtime';
import { Deployer, isAlive, median, okValue, processRuntime, waitFor } from './helpers';

const SLOW = `module.exports = async (p) => {
  await new Promise((r) => setTimeout(r, p.ms || 0));
  return process.pid;
};`;

/** Limits, the pool and the parent's robustness, with real child processes. */
describe('process function runtime: limits and pool', () => {
  let runtime: FunctionRuntime;
  let fns: Deployer;

  beforeAll(() => {
    runtime = processRuntime();
    fns = new Deployer(runtime);
  });
  afterAll(() => runtime.close());

  describe('timeout', () => {
    it.each([
      ['an infinite loop', `module.exports = (p) => { if (p.spin) for (;;); return 'served'; }`],
      [
        'a promise that never settles',
        `module.exports = (p) => p.spin ? new Promise(() => {}) : 'served'`,
      ],
    ])('kills %s at timeoutMs, and the next call is served', async (_what, code) => {
      const fn = await fns.deploy('spin', code, { timeoutMs: 300 });
      const started = Date.now();
      const o = await runtime.invoke(fn, { spin: true });
      expect(o.status).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(okValue(await runtime.invoke(fn, {}))).toBe('served');
    });
  });

  describe('memory', () => {
    const HEAP_BOMB = `module.exports = (p) => {
      if (!p.bomb) return 'served';
      const a = []; for (;;) a.push({ x: Math.random(), s: 'y'.repeat(64) + Math.random() });
    };`;
    const BUFFER_BOMB = `module.exports = (p) => {
      if (!p.bomb) return 'served';
      const a = []; for (let i = 0; i < 100; i++) a.push(Buffer.alloc(50 * 1024 * 1024, 1));
      return 'allocated ' + a.length * 50 + ' MB';
    };`;

    it.each([
      ['a heap bomb', HEAP_BOMB],
      ['an off-heap Buffer bomb', BUFFER_BOMB],
    ])('contains %s; the function and its neighbours keep serving', async (_what, code) => {
      const neighbour = await fns.deploy('neighbour', SLOW);
      const neighbourPid = okValue(await runtime.invoke(neighbour, {}));
      const fn = await fns.deploy('bomb', code, { memoryMb: 128, timeoutMs: 10_000 });
      const o = await runtime.invoke(fn, { bomb: true });
      expect(['crashed', 'error']).toContain(o.status);
      if (o.status === 'crashed' || o.status === 'error')
        expect(o.message).toMatch(/memory|alloc/i);
      expect(okValue(await runtime.invoke(fn, {}))).toBe('served');
      expect(okValue(await runtime.invoke(neighbour, {}))).toBe(neighbourPid);
    });
  });

  describe('sizes and concurrency', () => {
    it('refuses a result over maxPayloadBytes (bad_result) and a payload over it (error)', async () => {
      const fn = await fns.deploy('big', `module.exports = (p) => 'x'.repeat(p.n)`, {
        maxPayloadBytes: 1000,
      });
      expect(okValue(await runtime.invoke(fn, { n: 10 }))).toBe('xxxxxxxxxx');
      expect(await runtime.invoke(fn, { n: 2000 })).toMatchObject({ status: 'bad_result' });
      expect(await runtime.invoke(fn, { n: 1, pad: 'y'.repeat(2000) })).toMatchObject({
        status: 'error',
        message: expect.stringContaining('payload is larger'),
      });
    });

    it('refuses a result that is not JSON (bad_result)', async () => {
      const fn = await fns.deploy('bigint', `module.exports = () => ({ n: 1n })`);
      expect(await runtime.invoke(fn, {})).toMatchObject({ status: 'bad_result' });
    });

    it('answers busy past maxConcurrency', async () => {
      const fn = await fns.deploy('busy', SLOW, { maxConcurrency: 2 });
      const calls = [1, 2, 3].map(() => runtime.invoke(fn, { ms: 300 }));
      const statuses = (await Promise.all(calls)).map((o) => o.status).sort();
      expect(statuses).toEqual(['busy', 'ok', 'ok']);
    });
  });

  describe('logs', () => {
    it('captures console output per invocation, with levels', async () => {
      const fn = await fns.deploy(
        'logs',
        `module.exports = async (p) => {
           console.log('start', p.n, { deep: { x: 1 } });
           await new Promise((r) => setTimeout(r, 50 - p.n * 10));
           console.warn('warn', p.n);
           globalThis.console.error('end', p.n);
           return p.n;
         };`,
      );
      const [a, b] = await Promise.all([
        runtime.invoke(fn, { n: 1 }),
        runtime.invoke(fn, { n: 2 }),
      ]);
      for (const [o, n] of [
        [a, 1],
        [b, 2],
      ] as const) {
        expect(o.logs.map((l) => [l.level, l.message])).toEqual([
          ['log', `start ${n} { deep: { x: 1 } }`],
          ['warn', `warn ${n}`],
          ['error', `end ${n}`],
        ]);
      }
    });

    it('caps the number and the length of lines', async () => {
      const fn = await fns.deploy(
        'chatty',
        `module.exports = () => { for (let i = 0; i < 500; i++) console.log('x'.repeat(5000)); }`,
      );
      const o = await runtime.invoke(fn, {});
      expect(o.status).toBe('ok');
      expect(o.logs).toHaveLength(101);
      expect(o.logs[0]!.message.length).toBeLessThan(2_100);
      expect(o.logs[100]!.message).toMatch(/dropped/);
    });
  });

  describe('crashes and the parent', () => {
    it('survives process.exit and forged IPC messages; the next call is served', async () => {
      const fn = await fns.deploy(
        'hostile',
        `module.exports = (p) => {
           if (p.exit) process.exit(3);
           if (p.forge) {
             process.send({ t: 'res', id: 999999, ok: true, json: '1' });
             process.send({ t: 'log', id: 1, level: 'evil', message: 1 });
             process.send('garbage');
             process.send({ t: 'res', id: 2, ok: true, json: '{"forged":true}' });
           }
           return 'served';
         };`,
      );
      expect(await runtime.invoke(fn, { exit: true })).toMatchObject({
        status: 'crashed',
        message: expect.stringContaining('code 3'),
      });
      expect(okValue(await runtime.invoke(fn, { forge: true }))).toBe('served');
      expect(okValue(await runtime.invoke(fn, {}))).toBe('served');
    });

    it('keeps an uncaught async throw from killing the call', async () => {
      const fn = await fns.deploy(
        'stray',
        `module.exports = () => { setTimeout(() => { throw new Error('stray') }, 1); return 'ok'; }`,
      );
      expect(okValue(await runtime.invoke(fn, {}))).toBe('ok');
      await new Promise((r) => setTimeout(r, 50));
      expect(okValue(await runtime.invoke(fn, {}))).toBe('ok');
    });
  });

  describe('pool', () => {
    it('grows to maxWorkers under load', async () => {
      const fn = await fns.deploy('grow', SLOW);
      const pids = new Set<unknown>();
      for (let round = 0; round < 3; round++) {
        const outcomes = await Promise.all([1, 2, 3, 4].map(() => runtime.invoke(fn, { ms: 100 })));
        for (const o of outcomes) pids.add(okValue(o));
      }
      expect(pids.size).toBe(2);
      expect(runtime.stats().workers[`${fns.ref}/grow@${fn.version}`]).toBe(2);
    });

    it('recycles a worker after recycleAfter calls and reaps idle ones', async () => {
      const small = processRuntime({ recycleAfter: 3, idleMs: 1_000 });
      try {
        const fn = await new Deployer(small).deploy('recycled', SLOW);
        const pids: unknown[] = [];
        for (let i = 0; i < 6; i++) pids.push(okValue(await small.invoke(fn, {})));
        expect(new Set(pids.slice(0, 3)).size).toBe(1);
        expect(pids[3]).not.toBe(pids[0]);
        await waitFor(() => !isAlive(pids[0] as number));
        await waitFor(() => small.stats().workers[`${fn.ref}/recycled@1`] === 0, 4_000);
        expect(okValue(await small.invoke(fn, {}))).not.toBe(pids[5]); // a cold start again
      } finally {
        await small.close();
      }
    });

    it('starts fast: deploy (spawn + load) and warm calls', async () => {
      // Plain `node` spawned to its first IPC message: the floor, and the yardstick on a loaded
      // machine (the 100 ms target assumes an idle one).
      const cold: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < 8; i++) {
        let started = performance.now();
        await fns.deploy('cold', `module.exports = (p) => p`);
        cold.push(performance.now() - started);
        started = performance.now();
        const child = spawn(process.execPath, ['-e', 'process.send(1)'], {
          env: {},
          stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        });
        await once(child, 'message');
        floor.push(performance.now() - started);
        child.kill();
      }
      const fn = await fns.deploy('warm', `module.exports = (p) => p`);
      const warm: number[] = [];
      for (let i = 0; i < 200; i++) {
        const started = performance.now();
        okValue(await runtime.invoke(fn, { i }));
        warm.push(performance.now() - started);
      }
      console.log(
        `functions-runtime: deploy p50 ${median(cold).toFixed(1)} ms (plain node spawn p50 ` +
          `${median(floor).toFixed(1)} ms), warm call p50 ${median(warm).toFixed(2)} ms`,
      );
      expect(median(cold)).toBeLessThan(median(floor) * 2.5 + 20);
      expect(median(warm)).toBeLessThan(5);
    });

    it('close() leaves no process behind', async () => {
      const own = processRuntime();
      const fn = await new Deployer(own).deploy('closing', SLOW);
      const pids = await Promise.all([1, 2, 3].map(() => own.invoke(fn, { ms: 50 })));
      const slow = own.invoke(fn, { ms: 5_000 });
      await own.close();
      expect((await slow).status).toBe('crashed');
      for (const o of pids) expect(isAlive(okValue(o) as number)).toBe(false);
    });
  });

  it('createFunctionRuntime() builds the configured driver', async () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      MASTER_KEY: TEST_MASTER_KEY,
      FUNCTIONS_RUNTIME: 'process',
    });
    const configured = createFunctionRuntime(config);
    try {
      const fn = await new Deployer(configured).deploy(
        'configured',
        `module.exports = () => process.getuid()`,
      );
      expect(okValue(await configured.invoke(fn, {}))).toBe(config.functionsUid);
    } finally {
      await configured.close();
    }
  });
});
