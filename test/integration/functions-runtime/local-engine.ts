import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ContainerCreateOptions } from 'dockerode';
import type { ContainerHandle, DockerApi } from '@baseplate/functions-runtime';

/**
 * A stand-in for a Docker engine that runs each "container" as a local process: the spec's
 * entrypoint and command, its mounts mapped back to the host directories, its user, an empty
 * environment. It exercises the docker driver, the runner's HTTP mode and the socket protocol
 * for real on machines without an engine (the isolation itself needs the real one).
 */
export class LocalEngine implements DockerApi {
  readonly containers: LocalContainer[] = [];

  async createContainer(spec: ContainerCreateOptions): Promise<LocalContainer> {
    const c = new LocalContainer(spec);
    this.containers.push(c);
    return c;
  }

  async listContainers(o: { filters: { label: string[] } }): Promise<Array<{ Id: string }>> {
    const [key, value] = o.filters.label[0]!.split('=');
    return this.containers
      .filter((c) => c.alive && c.spec.Labels?.[key!] === value)
      .map((c) => ({ Id: c.spec.name! }));
  }

  getContainer(id: string): ContainerHandle {
    return this.containers.find((c) => c.spec.name === id)!;
  }
}

export class LocalContainer implements ContainerHandle {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  alive = false;

  constructor(readonly spec: ContainerCreateOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const mounts = (this.spec.HostConfig?.Binds ?? []).map((b) => b.split(':'));
    const map = (arg: string) =>
      mounts.reduce((a, [host, inside]) => a.split(inside!).join(host!), arg);
    const [uid, gid] = (this.spec.User ?? '').split(':').map(Number);
    const asRoot = process.getuid?.() === 0;
    // A container sees only its mount; a local process must also pass through the driver's
    // 0700 sockets directory to reach it (traverse only, no listing).
    const socketDir = mounts.find(([, inside]) => inside === '/run/baseplate')?.[0];
    if (socketDir) chmodSync(dirname(socketDir), 0o711);
    this.child = spawn(process.execPath, (this.spec.Cmd ?? []).map(map), {
      env: {},
      stdio: 'ignore',
      detached: true,
      ...(asRoot ? { uid, gid } : {}),
    });
    this.alive = true;
    this.exited = new Promise((r) =>
      this.child!.once('exit', () => {
        this.alive = false;
        r();
      }),
    );
  }

  wait(): Promise<void> {
    return this.exited;
  }

  async inspect(): Promise<{ State: { OOMKilled: boolean; Running: boolean } }> {
    return { State: { OOMKilled: false, Running: this.alive } };
  }

  async remove(): Promise<void> {
    if (this.alive && this.child?.pid) process.kill(-this.child.pid, 'SIGKILL');
    await this.exited;
  }
}
