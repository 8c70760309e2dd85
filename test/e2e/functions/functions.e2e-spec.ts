import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, waitFor } from '../../support/http';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/** Function workers of this test process: its children started with the permission model. */
function workerCount(): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (ppid === String(process.pid) && cmdline.includes('--experimental-permission')) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/**
 * Edge functions end to end: deploys through the control plane (JS and TS, redeploys, broken
 * redeploys), invocations through both paths with the service key only, the spec's runtime
 * table as handlers that try each row, limits (timeout, memory, payload size, concurrency),
 * invocation logs, secrets read through the REST API, and deletion.
 */
describe('edge functions', () => {
  let f: RestFixture;
  let local: Server;
  let localUrl: string;

  const deploy = (slug: string, body: string, name = slug) =>
    request(f.platform.control, 'POST', `/v1/projects/${f.project.ref}/functions`, {
      token: f.token,
      body: { slug, name, body },
    });
  const redeploy = (slug: string, body: string) =>
    request(f.platform.control, 'PATCH', `/v1/projects/${f.project.ref}/functions/${slug}`, {
      token: f.token,
      body: { body },
    });
  /** Path B with the service key (the default), or any headers given. */
  const invoke = (slug: string, payload: unknown = {}, headers?: Record<string, string>) =>
    request(f.platform.data, 'POST', `/projects/${f.project.ref}/functions/v1/${slug}`, {
      headers: headers ?? { authorization: `Bearer ${f.project.serviceKey}` },
      body: payload,
    });
  const ok = async (slug: string, body: string) => {
    const res = await deploy(slug, body);
    expect([res.status, res.body.status, res.text]).toEqual([201, 'ACTIVE', res.text]);
    return res;
  };

  beforeAll(async () => {
    local = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ from: 'local server', path: req.url }));
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
    f = await bootRestFixture();
  });
  afterAll(async () => {
    await f?.platform.close();
    await new Promise((resolve) => local?.close(resolve));
  });

  it('deploys JavaScript and TypeScript, invokes through both paths, and redeploys', async () => {
    const js = await ok('hello', 'module.exports = async (payload) => ({ hello: payload.name })');
    expect(js.body).toMatchObject({ slug: 'hello', name: 'hello', version: 1 });
    expect(js.body.id).toEqual(expect.any(String));

    const pathB = await invoke('hello', { name: 'Ada' });
    expect([pathB.status, pathB.body]).toEqual([200, { hello: 'Ada' }]);
    expect(pathB.headers.get('content-type')).toMatch(/^application\/json/);
    const pathA = await request(f.platform.data, 'POST', `/functions/v1/${f.project.ref}/hello`, {
      headers: { authorization: `Bearer ${f.project.serviceKey}` },
      body: { name: 'Grace' },
    });
    expect([pathA.status, pathA.body]).toEqual([200, { hello: 'Grace' }]);

    await ok(
      'typed',
      `interface In { a: number; b: number }
       export default async function (payload: In): Promise<{ sum: number }> { return { sum: payload.a + payload.b }; }`,
    );
    expect((await invoke('typed', { a: 2, b: 3 })).body).toEqual({ sum: 5 });
    await ok('named', 'export async function handler(p) { return [p.x, typeof require]; }');
    expect((await invoke('named', { x: 1 })).body).toEqual([1, 'function']);

    const v2 = await redeploy('hello', 'module.exports = async (p) => ({ hi: p.name, v: 2 })');
    expect([v2.status, v2.body.version]).toEqual([200, 2]);
    expect((await invoke('hello', { name: 'Ada' })).body).toEqual({ hi: 'Ada', v: 2 });

    const list = await request(
      f.platform.control,
      'GET',
      `/v1/projects/${f.project.ref}/functions`,
      {
        token: f.token,
      },
    );
    expect((list.body as { slug: string }[]).map((x) => x.slug)).toEqual(
      expect.arrayContaining(['hello', 'typed', 'named']),
    );
    const source = await request(
      f.platform.control,
      'GET',
      `/v1/projects/${f.project.ref}/functions/hello/body`,
      {
        token: f.token,
      },
    );
    expect(source.text).toBe('module.exports = async (p) => ({ hi: p.name, v: 2 })');
  });

  it('refuses a broken deploy with 400 and keeps the previous version serving', async () => {
    await ok('stable', 'module.exports = async () => "v1"');
    const syntax = await redeploy('stable', 'module.exports = async () => {{{');
    expect(syntax.status).toBe(400);
    expect(syntax.body.error).toEqual(expect.any(String));
    expect(syntax.body.message).toMatch(/stable\.ts:1/);
    const throws = await redeploy('stable', 'throw new Error("boom at load")');
    expect([throws.status, throws.body.message]).toEqual([
      400,
      expect.stringMatching(/boom at load/),
    ]);
    const noHandler = await redeploy('stable', 'export const notAHandler = 1;');
    expect(noHandler.status).toBe(400);
    expect((await invoke('stable')).body).toBe('v1');
    const fn = await request(
      f.platform.control,
      'GET',
      `/v1/projects/${f.project.ref}/functions/stable`,
      {
        token: f.token,
      },
    );
    expect(fn.body.version).toBe(1);

    expect((await deploy('Bad Slug', 'module.exports = async () => 1')).status).toBe(400);
    expect((await deploy('stable', 'module.exports = async () => 1')).status).toBe(409);
    expect((await deploy('broken-new', 'module.exports = (')).status).toBe(400);
    const missing = await request(
      f.platform.control,
      'GET',
      `/v1/projects/${f.project.ref}/functions/broken-new`,
      {
        token: f.token,
      },
    );
    expect(missing.status).toBe(404);
  });

  it('lets handlers use fetch, crypto, buffer and url, and nothing of the host', async () => {
    await ok(
      'allowed',
      `const { createHash, randomUUID } = require('crypto');
       const { URL } = require('url');
       module.exports = async ({ url }) => {
         const res = await fetch(url + '/ping');
         return {
           fetched: await res.json(),
           hash: createHash('sha256').update('abc').digest('hex'),
           uuid: randomUUID().length,
           b64: Buffer.from('hi').toString('base64'),
           host: new URL('https://example.com/a?b=1').host,
         };
       };`,
    );
    const res = await invoke('allowed', { url: localUrl });
    expect(res.body).toEqual({
      fetched: { from: 'local server', path: '/ping' },
      hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      uuid: 36,
      b64: 'aGk=',
      host: 'example.com',
    });

    const attempts: Record<string, string> = {
      requireFs: `require('fs')`,
      requireChildProcess: `require('child_process')`,
      requirePackage: `require('left-pad')`,
      requireAbsolute: `require('/etc/passwd')`,
      readPasswd: `globalThis.process?.mainModule?.require('fs').readFileSync('/etc/passwd', 'utf8') ?? (() => { throw new Error('no process') })()`,
      escapeViaFunction: `fetch.constructor('return process')().mainModule.require('fs').readFileSync('/etc/passwd', 'utf8')`,
      escapeBinding: `fetch.constructor('return process')().binding('fs')`,
      spawn: `fetch.constructor('return process')().mainModule.require('child_process').execSync('id').toString()`,
      fileUrl: `await (await fetch('file:///etc/passwd')).text()`,
      dynamicImport: `(await import('node:fs')).readFileSync('/etc/passwd', 'utf8')`,
      killParent: `(() => { const p = fetch.constructor('return process')(); p.kill(p.ppid, 'SIGTERM'); return 'sent'; })()`,
      debugParent: `(() => { const p = fetch.constructor('return process')(); p._debugProcess(p.ppid); return 'opened'; })()`,
      nativeAddon: `fetch.constructor('return process')().dlopen({ exports: {} }, '/nonexistent.node')`,
    };
    for (const [slug, expr] of Object.entries(attempts)) {
      const name = slug.toLowerCase();
      await ok(name, `module.exports = async () => { return ${expr}; };`);
      const tried = await invoke(name);
      expect([slug, tried.status]).toEqual([slug, 500]);
      expect(JSON.stringify(tried.body)).not.toMatch(/root:x:0:0/);
    }

    await ok(
      'env',
      'module.exports = async () => ({ env: Object.keys(globalThis.process?.env ?? fetch.constructor("return process")().env) })',
    );
    expect((await invoke('env')).body).toEqual({ env: [] });
    // The platform is alive after all of that.
    expect((await invoke('hello', { name: 'still here' })).status).toBe(200);
  });

  it('ends an infinite loop with 504 and a memory bomb with 500, and serves the next call', async () => {
    const limits = await request(
      f.platform.control,
      'PATCH',
      `/v1/projects/${f.project.ref}/config/functions`,
      {
        token: f.token,
        body: { timeout_ms: 1000 },
      },
    );
    expect(limits.body).toMatchObject({ timeout_ms: 1000, memory_mb: 128, max_concurrency: 10 });
    await ok(
      'spin',
      'module.exports = async (p) => { if (p.spin) { while (true) {} } return "alive"; }',
    );
    const started = Date.now();
    const loop = await invoke('spin', { spin: true });
    expect([loop.status, loop.body.error]).toEqual([504, expect.stringMatching(/1000 ms/)]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await invoke('spin', {})).body).toBe('alive');

    await ok(
      'bomb',
      `module.exports = async (p) => {
         if (p.heap) { const a = []; while (true) a.push(new Array(1e6).fill(1)); }
         if (p.buffers) { const a = []; while (true) a.push(Buffer.alloc(50 * 1024 * 1024, 1)); }
         return 'fine';
       };`,
    );
    const heap = await invoke('bomb', { heap: true });
    expect(heap.status).toBe(500);
    expect((await invoke('bomb', {})).body).toBe('fine');
    const buffers = await invoke('bomb', { buffers: true });
    expect(buffers.status).toBe(500);
    expect((await invoke('bomb', {})).body).toBe('fine');
    // Other functions never noticed.
    expect((await invoke('hello', { name: 'x' })).status).toBe(200);
  });

  it('accepts only the service key, and only POST with a JSON body', async () => {
    const user = await request(
      f.platform.data,
      'POST',
      `/projects/${f.project.ref}/auth/v1/admin/users`,
      {
        headers: { apikey: f.project.serviceKey, authorization: `Bearer ${f.project.serviceKey}` },
        body: { email: 'fn-user@example.com', password: 'secret-1', email_confirm: true },
      },
    );
    expect(user.status).toBe(200);
    const login = await request(
      f.platform.data,
      'POST',
      `/projects/${f.project.ref}/auth/v1/token?grant_type=password`,
      {
        headers: { apikey: f.project.anonKey },
        body: { email: 'fn-user@example.com', password: 'secret-1' },
      },
    );
    const other = await f.platform.newProject(f.token, 'other');
    const cases: Array<[string, Record<string, string>]> = [
      ['no key', {}],
      ['anon key', { authorization: `Bearer ${f.project.anonKey}` }],
      ['anon apikey', { apikey: f.project.anonKey }],
      [
        'user token',
        { apikey: f.project.anonKey, authorization: `Bearer ${login.body.access_token}` },
      ],
      ["another project's service key", { authorization: `Bearer ${other.serviceKey}` }],
    ];
    for (const [what, headers] of cases) {
      const res = await invoke('hello', { name: 'x' }, headers);
      expect([what, res.status, typeof res.body.error]).toEqual([what, 401, 'string']);
    }

    const get = await request(
      f.platform.data,
      'GET',
      `/projects/${f.project.ref}/functions/v1/hello`,
      {
        headers: { authorization: `Bearer ${f.project.serviceKey}` },
      },
    );
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const bad = await fetch(`${f.platform.data}/projects/${f.project.ref}/functions/v1/hello`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${f.project.serviceKey}`,
        'content-type': 'application/json',
      },
      body: '{"name": ',
    });
    expect(bad.status).toBe(400);
    expect(typeof ((await bad.json()) as { error: unknown }).error).toBe('string');
    const unknown = await invoke('nope');
    expect([unknown.status, typeof unknown.body.error]).toEqual([404, 'string']);
  });

  it('enforces payload, result and concurrency limits', async () => {
    await request(f.platform.control, 'PATCH', `/v1/projects/${f.project.ref}/config/functions`, {
      token: f.token,
      body: { max_payload_bytes: 2048, max_concurrency: 2, timeout_ms: 5000 },
    });
    await ok('sizes', 'module.exports = async (p) => p.big ? "x".repeat(10000) : p;');
    await waitFor(
      'limits applied',
      async () => (await invoke('sizes', { pad: 'y'.repeat(3000) })).status === 413,
    );
    expect((await invoke('sizes', { big: true })).status).toBe(500);
    // Chunked (no Content-Length): measured once parsed.
    const chunked = await fetch(`${f.platform.data}/projects/${f.project.ref}/functions/v1/sizes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${f.project.serviceKey}`,
        'content-type': 'application/json',
      },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(JSON.stringify({ pad: 'z'.repeat(3000) })));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await invoke('sizes', { small: 1 })).body).toEqual({ small: 1 });

    await ok(
      'slow',
      'module.exports = async () => { await new Promise((r) => setTimeout(r, 700)); return "done"; }',
    );
    const results = await Promise.all([1, 2, 3, 4].map(() => invoke('slow')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toContain(429);
    expect(statuses).toContain(200);
  });

  it('records invocations with their console output, newest first', async () => {
    await ok(
      'chatty',
      'module.exports = async (p) => { console.log("got", p.n); console.error("oops"); if (p.fail) throw new Error("nope"); return p.n; };',
    );
    expect((await invoke('chatty', { n: 1 })).body).toBe(1);
    const failed = await invoke('chatty', { n: 2, fail: true });
    expect([failed.status, failed.body]).toEqual([500, { error: 'nope' }]);
    const logs = await waitFor('invocations recorded', async () => {
      const res = await request(
        f.platform.control,
        'GET',
        `/v1/projects/${f.project.ref}/functions/chatty/logs`,
        {
          token: f.token,
        },
      );
      return (res.body as unknown[]).length >= 2
        ? (res.body as Array<Record<string, unknown>>)
        : undefined;
    });
    expect(logs[0]).toMatchObject({ status: 'error', http_status: 500, version: 1 });
    expect(logs[1]).toMatchObject({ status: 'ok', http_status: 200 });
    expect(logs[1]!.logs).toEqual([
      expect.objectContaining({ level: 'log', message: 'got 1' }),
      expect.objectContaining({ level: 'error', message: 'oops' }),
    ]);
  });

  it('reads a secret from project_secrets through the REST API with the service key', async () => {
    const put = await request(f.platform.control, 'POST', `/v1/projects/${f.project.ref}/secrets`, {
      token: f.token,
      body: [{ name: 'STRIPE_KEY', value: 'sk_test_123' }],
    });
    expect(put.status).toBe(201);
    await ok(
      'secret',
      `export default async function ({ base, ref, serviceKey, name }) {
         const res = await fetch(\`\${base}/projects/\${ref}/rest/v1/project_secrets?name=eq.\${name}&select=value\`, {
           headers: { apikey: serviceKey, Authorization: \`Bearer \${serviceKey}\` },
         });
         const [row] = await res.json();
         return { status: res.status, value: row?.value ?? null };
       }`,
    );
    const res = await invoke('secret', {
      base: f.platform.data,
      ref: f.project.ref,
      serviceKey: f.project.serviceKey,
      name: 'STRIPE_KEY',
    });
    expect(res.body).toEqual({ status: 200, value: 'sk_test_123' });
  });

  it("stops a deleted project's function processes", async () => {
    const doomed = await f.platform.newProject(f.token, 'doomed');
    const created = await request(
      f.platform.control,
      'POST',
      `/v1/projects/${doomed.ref}/functions`,
      {
        token: f.token,
        body: {
          slug: 'short-lived',
          name: 'short-lived',
          body: 'module.exports = async () => "up"',
        },
      },
    );
    expect(created.status).toBe(201);
    const before = workerCount();
    const call = await request(
      f.platform.data,
      'POST',
      `/projects/${doomed.ref}/functions/v1/short-lived`,
      {
        headers: { authorization: `Bearer ${doomed.serviceKey}` },
        body: {},
      },
    );
    expect(call.body).toBe('up');
    expect(workerCount()).toBe(before + 1);
    const del = await request(f.platform.control, 'DELETE', `/v1/projects/${doomed.ref}`, {
      token: f.token,
    });
    expect(del.status).toBe(200);
    await waitFor('its worker to stop', async () => workerCount() === before);
  });

  it('deletes a function: it answers 404 and its processes stop', async () => {
    await ok('doomed', 'module.exports = async () => "here"');
    expect((await invoke('doomed')).body).toBe('here');
    const del = await request(
      f.platform.control,
      'DELETE',
      `/v1/projects/${f.project.ref}/functions/doomed`,
      {
        token: f.token,
      },
    );
    expect(del.status).toBe(200);
    await waitFor(
      'function gone from the data plane',
      async () => (await invoke('doomed')).status === 404,
    );
    // Created again under the same slug (version 1 again): the new code answers.
    await ok('doomed', 'module.exports = async () => "reborn"');
    expect((await invoke('doomed')).body).toBe('reborn');
  });
});
