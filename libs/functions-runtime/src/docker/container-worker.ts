import type { ContainerCreateOptions } from 'dockerode';
import type { PoolWorker, WorkerHooks } from '../pool';
import { outcomeOf } from '../protocol';
import type { FunctionLimits, InvokeOutcome, LogLine } from '../runtime';
import type { RunnerClient } from './runner-client';

/** The part of dockerode the driver uses (a fake implements it in the unit tests). */
export interface ContainerHandle {
  start(): Promise<unknown>;
  wait(): Promise<unknown>;
  inspect(): Promise<{ State?: { OOMKilled?: boolean; Running?: boolean } }>;
  remove(options: { force: boolean }): Promise<unknown>;
}

export interface DockerApi {
  createContainer(options: ContainerCreateOptions): Promise<ContainerHandle>;
  listContainers(options: {
    all: boolean;
    filters: { label: string[] };
  }): Promise<Array<{ Id: string }>>;
  getContainer(id: string): ContainerHandle;
}

export interface ContainerWorkerOptions {
  docker: DockerApi;
  spec: ContainerCreateOptions;
  client: RunnerClient;
  code: string;
  limits: FunctionLimits;
  startTimeoutMs: number;
  hooks: WorkerHooks;
  /** Removes the socket directory once the container is gone. */
  cleanup(): void;
}

const HEALTH_POLL_MS = 25;

interface Call {
  started: number;
  timer: NodeJS.Timeout;
  resolve(o: InvokeOutcome): void;
}

/**
 * One container running one function version. Like the process worker it owns the wall clock:
 * past timeoutMs the call is `timeout` and the container is destroyed (the pool starts another).
 */
export class ContainerWorker implements PoolWorker {
  calls = 0;
  private container: ContainerHandle | undefined;
  private readonly pending = new Map<number, Call>();
  private nextId = 1;
  stopped = false;
  private torn = false;

  constructor(private readonly o: ContainerWorkerOptions) {}

  async start(): Promise<void> {
    const deadline = Date.now() + this.o.startTimeoutMs;
    const container = await this.o.docker.createContainer(this.o.spec);
    this.container = container;
    if (this.stopped) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error('stopped while starting');
    }
    await container.start();
    container.wait().then(
      () => void this.onContainerGone(),
      () => void this.onContainerGone(),
    );
    while (!(await this.o.client.health())) {
      if (this.stopped) throw new Error('The container stopped while starting');
      if (Date.now() > deadline) {
        throw new Error(`The container did not answer within ${this.o.startTimeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
    }
    await this.o.client.load(this.o.code, this.o.limits.timeoutMs);
  }

  invoke(payloadJson: string): Promise<InvokeOutcome> {
    this.calls++;
    const started = Date.now();
    if (this.stopped) return Promise.resolve(crashed('The container is not running', started, []));
    const id = this.nextId++;
    return new Promise<InvokeOutcome>((resolve) => {
      const timer = setTimeout(() => this.onTimeout(id), this.o.limits.timeoutMs);
      this.pending.set(id, { started, timer, resolve });
      void this.o.client.invoke(payloadJson).then(async (reply) => {
        const call = this.pending.get(id);
        if (!call) return;
        if (reply.kind === 'result') {
          this.settle(id, outcomeOf(reply.result, Date.now() - started, reply.logs));
        } else {
          this.stop(await this.whyGone(reply.message), true);
        }
      });
    });
  }

  stop(reason: string, abnormal = false): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const id of [...this.pending.keys()]) {
      this.settle(id, crashed(reason, this.pending.get(id)!.started, []));
    }
    void this.teardown(abnormal);
  }

  private onTimeout(id: number): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.settle(id, { status: 'timeout', durationMs: Date.now() - call.started, logs: [] });
    this.stop(
      `Stopped: another call to this function ran past its ${this.o.limits.timeoutMs} ms limit`,
      true,
    );
  }

  private settle(id: number, outcome: InvokeOutcome): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    call.resolve(outcome);
  }

  private async onContainerGone(): Promise<void> {
    if (!this.stopped) this.stop(await this.whyGone('the container exited'), true);
  }

  private async whyGone(detail: string): Promise<string> {
    try {
      const state = (await this.container?.inspect())?.State;
      if (state?.OOMKilled) {
        return `The function ran out of memory (limit ${this.o.limits.memoryMb} MB)`;
      }
    } catch {
      // Gone already: the detail is all there is.
    }
    return `The function's container stopped: ${detail}`;
  }

  private async teardown(abnormal: boolean): Promise<void> {
    if (this.torn) return;
    this.torn = true;
    this.o.client.close();
    await this.container?.remove({ force: true }).catch(() => undefined);
    this.o.cleanup();
    this.o.hooks.exited(abnormal);
  }
}

function crashed(message: string, started: number, logs: LogLine[]): InvokeOutcome {
  return { status: 'crashed', message, durationMs: Date.now() - started, logs };
}
