import { statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ContainerCreateOptions } from 'dockerode';
import { FunctionLoadError, type FunctionRuntime } from '../runtime';
import { LABEL_RUNTIME, SOCKET_FILE_NAME } from './container-spec';
import type { ContainerHandle, DockerApi } from './container-worker';
import { createDockerRuntime } from './docker-driver';

/**
 * A container of the fake engine: an in-process HTTP server on the socket the spec mounts,
 * speaking the runner's protocol with behaviours chosen by the payload's `op`.
 */
class FakeContainer implements ContainerHandle {
  removed = false;
  oomKilled = false;
  private server: Server | undefined;
  private exit!: () => void;
  private readonly exited = new Promise<void>((r) => (this.exit = r));

  constructor(readonly spec: ContainerCreateOptions) {}

  get socketDir(): string {
    return this.spec.HostConfig!.Binds![1]!.split(':')[0]!;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((r) => this.server!.listen(join(this.socketDir, SOCKET_FILE_NAME), r));
  }

  wait(): Promise<void> {
    return this.exited;
  }

  async inspect() {
    return { State: { OOMKilled: this.oomKilled, Running: !this.removed } };
  }

  async remove(): Promise<void> {
    this.die();
    this.removed = true;
  }

  private die(): void {
    this.server?.close();
    this.server?.closeAllConnections();
    this.exit();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const send = (status: number, v: unknown): void => {
      res.writeHead(status).end(JSON.stringify(v));
    };
    if (req.url === '/health') return send(200, { ok: true });
    if (req.url === '/load') {
      const { code } = JSON.parse(body) as { code: string };
      if (code.includes('LOAD_FAIL')) return send(422, { t: 'loadErr', message: 'Error: boom' });
      return send(200, { t: 'loaded' });
    }
    const p = JSON.parse(body) as { op: string; v?: unknown };
    if (p.op === 'echo') {
      const logs = [{ level: 'log', message: 'hi', at: 0 }];
      return send(200, { ok: true, json: JSON.stringify(p.v), logs });
    }
    if (p.op === 'garbage') {
      res.writeHead(200).end('{"ok":tru');
      return;
    }
    if (p.op === 'oom') {
      this.oomKilled = true;
      return this.die();
    }
    // 'hang': never answers.
  }
}

class FakeDocker implements DockerApi {
  readonly containers: FakeContainer[] = [];

  async createContainer(spec: ContainerCreateOptions): Promise<FakeContainer> {
    const c = new FakeContainer(spec);
    this.containers.push(c);
    return c;
  }

  async listContainers(o: { filters: { label: string[] } }) {
    const [key, value] = o.filters.label[0]!.split('=');
    return this.containers
      .filter((c) => !c.removed && c.spec.Labels?.[key!] === value)
      .map((c) => ({ Id: c.spec.name! }));
  }

  getContainer(id: string): ContainerHandle {
    return this.containers.find((c) => c.spec.name === id)!;
  }
}

const LIMITS = { timeoutMs: 300, memoryMb: 128, maxPayloadBytes: 1024, maxConcurrency: 2 };
const FN = { ref: 'abcdefghijklmnopqrst', slug: 'hello', version: 1 };

describe('docker runtime (fake engine)', () => {
  let docker: FakeDocker;
  let runtime: FunctionRuntime;

  beforeEach(() => {
    docker = new FakeDocker();
    runtime = createDockerRuntime({
      docker,
      image: 'baseplate-fn:test',
      network: 'none',
      uid: 65534,
      idleMs: 60_000,
      recycleAfter: 1_000,
      startTimeoutMs: 2_000,
    });
  });
  afterEach(() => runtime.close());

  it('creates one locked-down container per version and calls it over its socket', async () => {
    await runtime.deploy({ ...FN, code: 'module.exports = () => 1', limits: LIMITS });
    expect(docker.containers).toHaveLength(1);
    const spec = docker.containers[0]!.spec;
    expect(spec.Image).toBe('baseplate-fn:test');
    expect(spec.HostConfig).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      NetworkMode: 'none',
    });
    const dir = statSync(docker.containers[0]!.socketDir);
    expect(dir.mode & 0o777).toBe(0o700);
    if (process.getuid?.() === 0) {
      expect(spec.User).toBe('65534:65534');
      expect(dir.uid).toBe(65534);
    }
    const o = await runtime.invoke(FN, { op: 'echo', v: { a: 1 } });
    expect(o).toMatchObject({ status: 'ok', value: { a: 1 }, logs: [{ message: 'hi' }] });
    expect(runtime.stats().workers).toEqual({ 'abcdefghijklmnopqrst/hello@1': 1 });
  });

  it('reports a load failure as FunctionLoadError and removes the container', async () => {
    const deploy = runtime.deploy({ ...FN, code: 'LOAD_FAIL', limits: LIMITS });
    await expect(deploy).rejects.toBeInstanceOf(FunctionLoadError);
    await expect(deploy).rejects.toThrow('Error: boom');
    expect(docker.containers[0]!.removed).toBe(true);
  });

  it('destroys the container at the timeout; the next call gets a new one', async () => {
    await runtime.deploy({ ...FN, code: 'x', limits: LIMITS });
    expect(await runtime.invoke(FN, { op: 'hang' })).toMatchObject({ status: 'timeout' });
    expect(docker.containers[0]!.removed).toBe(true);
    expect(await runtime.invoke(FN, { op: 'echo', v: 2 })).toMatchObject({ value: 2 });
    expect(docker.containers).toHaveLength(2);
  });

  it('reports an out-of-memory kill as crashed, and serves the next call', async () => {
    await runtime.deploy({ ...FN, code: 'x', limits: LIMITS });
    expect(await runtime.invoke(FN, { op: 'oom' })).toMatchObject({
      status: 'crashed',
      message: 'The function ran out of memory (limit 128 MB)',
    });
    expect(await runtime.invoke(FN, { op: 'echo', v: 3 })).toMatchObject({ value: 3 });
  });

  it('treats a malformed reply as a crash of the container', async () => {
    await runtime.deploy({ ...FN, code: 'x', limits: LIMITS });
    expect(await runtime.invoke(FN, { op: 'garbage' })).toMatchObject({ status: 'crashed' });
    expect(docker.containers[0]!.removed).toBe(true);
  });

  it('answers busy past maxConcurrency', async () => {
    await runtime.deploy({ ...FN, code: 'x', limits: { ...LIMITS, timeoutMs: 200 } });
    const calls = [1, 2, 3].map(() => runtime.invoke(FN, { op: 'hang' }));
    const statuses = (await Promise.all(calls)).map((o) => o.status).sort();
    expect(statuses).toEqual(['busy', 'crashed', 'timeout']);
  });

  it('close() removes the containers, including any left behind', async () => {
    await runtime.deploy({ ...FN, code: 'x', limits: LIMITS });
    const stray = await docker.createContainer({
      name: 'stray',
      Labels: { [LABEL_RUNTIME]: docker.containers[0]!.spec.Labels![LABEL_RUNTIME]! },
    });
    await runtime.close();
    expect(docker.containers[0]!.removed).toBe(true);
    expect(stray.removed).toBe(true);
  });
});
