import { type ChildProcess, spawn } from 'node:child_process';
import type { PoolWorker, WorkerHooks } from '../pool';
import { MAX_LOG_LINES, outcomeOf, parseRunnerMessage, type RunnerMessage } from '../protocol';
import {
  FunctionLoadError,
  type FunctionLimits,
  type InvokeOutcome,
  type LogLine,
} from '../runtime';
import type { WorkerCommand } from './worker-command';

/** Messages that break the protocol before a worker is killed as misbehaving. */
const MAX_STRIKES = 20;
const STDERR_TAIL_CHARS = 4_000;
/** stderr read from one worker before the pipe is closed (reading it costs the platform CPU). */
const STDERR_BUDGET_BYTES = 1024 * 1024;
const OUT_OF_MEMORY =
  /heap limit|allocation failed|out of memory|bad_alloc|Array buffer allocation failed/i;

export interface ProcessWorkerOptions {
  command: WorkerCommand;
  code: string;
  limits: FunctionLimits;
  /** Spawn to the runner's `ready`. */
  startTimeoutMs: number;
  hooks: WorkerHooks;
}

interface Call {
  started: number;
  logs: LogLine[];
  timer: NodeJS.Timeout;
  resolve(o: InvokeOutcome): void;
}

interface Starting {
  timer: NodeJS.Timeout;
  resolve(): void;
  reject(e: Error): void;
}

/**
 * One child Node process running runner.js over the IPC channel. It owns the wall clock of
 * each call: past timeoutMs the call ends as `timeout` and the whole process group is killed
 * (a busy loop cannot be interrupted any other way), which ends its other calls as `crashed`.
 */
export class ProcessWorker implements PoolWorker {
  calls = 0;
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Call>();
  private starting: Starting | undefined;
  private nextId = 1;
  private strikes = 0;
  private stderrTail = '';
  stopped = false;
  private exited = false;
  private abnormal = false;

  constructor(private readonly o: ProcessWorkerOptions) {}

  start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => this.failStart(new Error(`no answer within ${this.o.startTimeoutMs} ms`)),
        this.o.startTimeoutMs,
      );
      this.starting = { timer, resolve, reject };
      const { file, args, options } = this.o.command;
      let child: ChildProcess;
      try {
        child = spawn(file, args, options);
      } catch (e) {
        this.failStart(e as Error);
        this.onExit(null, null);
        return;
      }
      this.child = child;
      child.on('message', (m) => this.onMessage(m));
      // 'close', not 'exit': by then stderr is read to the end (the out-of-memory report).
      child.on('close', (code: number | null, signal: NodeJS.Signals | null) =>
        this.onExit(code, signal),
      );
      child.on('error', (e) => {
        // Spawn failures (no prlimit, bad uid) arrive here without an exit event.
        if (child.pid === undefined) {
          this.failStart(e);
          this.onExit(null, null);
        }
      });
      // The channel closes just before a dying worker's exit; if no exit follows, the handler
      // closed it and can no longer be called: replace the worker.
      child.on('disconnect', () => {
        setTimeout(() => this.stop('The function closed its channel', true), 500).unref();
      });
      let stderrBytes = 0;
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (d: string) => {
        this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL_CHARS);
        if ((stderrBytes += d.length) > STDERR_BUDGET_BYTES) child.stderr?.destroy();
      });
    });
  }

  invoke(payloadJson: string): Promise<InvokeOutcome> {
    this.calls++;
    const started = Date.now();
    if (this.stopped || this.starting || !this.child) {
      return Promise.resolve(crashed('The worker is not running', started, []));
    }
    const id = this.nextId++;
    return new Promise<InvokeOutcome>((resolve) => {
      const timer = setTimeout(() => this.onTimeout(id), this.o.limits.timeoutMs);
      this.pending.set(id, { started, logs: [], timer, resolve });
      this.send({ t: 'inv', id, payload: payloadJson });
    });
  }

  stop(reason: string, abnormal = false): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abnormal ||= abnormal;
    this.failStart(new Error(reason));
    this.settleAll(reason);
    const pid = this.child?.pid;
    if (pid === undefined || this.exited) return;
    try {
      process.kill(-pid, 'SIGKILL'); // the group: detached made the worker its leader
    } catch {
      this.child?.kill('SIGKILL');
    }
  }

  private onTimeout(id: number): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    call.resolve({ status: 'timeout', durationMs: Date.now() - call.started, logs: call.logs });
    this.stop(
      `Stopped: another call to this function ran past its ${this.o.limits.timeoutMs} ms limit`,
      true,
    );
  }

  private onMessage(raw: unknown): void {
    const msg = parseRunnerMessage(raw, this.o.limits.maxPayloadBytes);
    if (!msg || !this.accept(msg)) this.strike();
  }

  /** Applies a well-formed message; false when it makes no sense now (a forged id, a flood). */
  private accept(msg: RunnerMessage): boolean {
    switch (msg.t) {
      case 'ready': {
        if (!this.starting) return false;
        // Loading runs the function's top level: it gets the wall clock of a call.
        const { timeoutMs } = this.o.limits;
        clearTimeout(this.starting.timer);
        this.starting.timer = setTimeout(
          () => this.failStart(new FunctionLoadError(`Loading took longer than ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.send({ t: 'load', code: this.o.code, limits: this.o.limits });
        return true;
      }
      case 'loaded':
        if (!this.starting) return false;
        clearTimeout(this.starting.timer);
        this.starting.resolve();
        this.starting = undefined;
        return true;
      case 'loadErr':
        if (!this.starting) return false;
        this.failStart(new FunctionLoadError(msg.message));
        this.stop('The code did not load');
        return true;
      case 'log': {
        const call = this.pending.get(msg.id);
        if (!call || call.logs.length >= MAX_LOG_LINES) return false;
        call.logs.push(msg.line);
        return true;
      }
      case 'res': {
        const call = this.pending.get(msg.id);
        if (!call) return false;
        this.pending.delete(msg.id);
        clearTimeout(call.timer);
        call.resolve(outcomeOf(msg.result, Date.now() - call.started, call.logs));
        return true;
      }
      case 'uncaught':
        this.o.hooks.unhealthy();
        return true;
    }
  }

  private strike(): void {
    if (++this.strikes > MAX_STRIKES) this.stop('The function broke the worker protocol', true);
  }

  private send(message: object): void {
    try {
      this.child?.send(message, (e) => {
        if (e) this.stop(`The worker could not be reached: ${e.message}`, true);
      });
    } catch (e) {
      this.stop(`The worker could not be reached: ${(e as Error).message}`, true);
    }
  }

  private failStart(e: Error): void {
    if (!this.starting) return;
    clearTimeout(this.starting.timer);
    this.starting.reject(e);
    this.starting = undefined;
    this.stop(e.message);
  }

  private settleAll(message: string): void {
    for (const call of this.pending.values()) {
      clearTimeout(call.timer);
      call.resolve(crashed(message, call.started, call.logs));
    }
    this.pending.clear();
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    const reason = this.exitReason(code, signal);
    this.failStart(new Error(reason));
    if (!this.stopped) {
      this.abnormal = true;
      this.stopped = true;
      this.settleAll(reason);
    }
    this.o.hooks.exited(this.abnormal);
  }

  private exitReason(code: number | null, signal: NodeJS.Signals | null): string {
    if (OUT_OF_MEMORY.test(this.stderrTail)) {
      return `The function ran out of memory (limit ${this.o.limits.memoryMb} MB)`;
    }
    if (signal) return `The function's process was killed (${signal})`;
    return `The function's process exited (code ${code})`;
  }
}

function crashed(message: string, started: number, logs: LogLine[]): InvokeOutcome {
  return { status: 'crashed', message, durationMs: Date.now() - started, logs };
}
