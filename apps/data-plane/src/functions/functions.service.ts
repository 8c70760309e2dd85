import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import type { Pool } from 'pg';
import type { FunctionRef, FunctionRuntime, InvokeOutcome } from '@baseplate/functions-runtime';
import {
  CONTROL_DB_POOL,
  ProjectContextCache,
  type ProjectRequestContext,
} from '../project-context';
import { InvocationRecorder } from './invocation-recorder';

export const FUNCTION_RUNTIME = Symbol('FUNCTION_RUNTIME');

/** An invocation's HTTP answer. */
export interface FunctionAnswer {
  status: number;
  body: unknown;
}

/** The outcome of a call as the HTTP status and JSON body the caller gets. */
export function answerOf(outcome: InvokeOutcome, timeoutMs: number): FunctionAnswer {
  switch (outcome.status) {
    case 'ok':
      return { status: 200, body: outcome.value === undefined ? null : outcome.value };
    case 'error':
      return { status: 500, body: { error: outcome.message } };
    case 'timeout':
      return { status: 504, body: { error: `The function did not finish within ${timeoutMs} ms` } };
    case 'crashed':
      return { status: 500, body: { error: `The function crashed: ${outcome.message}` } };
    case 'bad_result':
      return { status: 500, body: { error: outcome.message } };
    case 'busy':
      return {
        status: 429,
        body: { error: 'Too many invocations of this function at once; retry shortly' },
      };
  }
}

/**
 * Invocations: the function's active version (from the project context) is loaded into the
 * runtime on first use, its code read from the control database; every call is recorded.
 * Any invalidation of a project (a deploy, a delete, new limits, the project going away)
 * stops its function processes, so the next call starts the current version with current
 * limits.
 */
@Injectable()
export class FunctionsService implements OnModuleDestroy {
  private readonly loading = new Map<string, Promise<void>>();
  /** The function id each loaded `ref/slug` belongs to. */
  private readonly loadedIds = new Map<string, string>();

  constructor(
    @Inject(FUNCTION_RUNTIME) private readonly runtime: FunctionRuntime,
    @Inject(CONTROL_DB_POOL) private readonly pool: Pool,
    private readonly recorder: InvocationRecorder,
    contexts: ProjectContextCache,
    @InjectPinoLogger(FunctionsService.name) private readonly logger: PinoLogger,
  ) {
    contexts.onInvalidate((ref) => {
      void this.stop(ref);
    });
  }

  async invoke(
    ctx: ProjectRequestContext,
    slug: string,
    entry: { id: string; version: number },
    payload: unknown,
  ): Promise<FunctionAnswer> {
    const limits = ctx.context.functions.limits;
    const started = performance.now();
    const fn: FunctionRef = { ref: ctx.ref, slug, version: entry.version };
    let outcome: InvokeOutcome;
    try {
      await this.load(fn, entry.id, limits);
      outcome = await this.runtime.invoke(fn, payload);
    } catch (err) {
      // A version that cannot load now (it loaded at deploy) or a runtime failure.
      this.logger.error({ err, ref: ctx.ref, slug }, 'Function could not be invoked');
      outcome = {
        status: 'crashed',
        message: 'the function could not be started',
        durationMs: performance.now() - started,
        logs: [],
      };
    }
    const answer = answerOf(outcome, limits.timeoutMs);
    this.recorder.record({
      functionId: entry.id,
      version: entry.version,
      status: outcome.status,
      httpStatus: answer.status,
      durationMs: outcome.durationMs,
      logs: outcome.logs,
    });
    return answer;
  }

  /** Records a call refused before it reached the runtime (too large, bad JSON). */
  refused(entry: { id: string; version: number }, status: string, httpStatus: number): void {
    this.recorder.record({
      functionId: entry.id,
      version: entry.version,
      status,
      httpStatus,
      durationMs: 0,
      logs: [],
    });
  }

  /** Loads the version into the runtime once, however many calls arrive while it starts. */
  private load(
    fn: FunctionRef,
    id: string,
    limits: ProjectRequestContext['context']['functions']['limits'],
  ): Promise<void> {
    const slot = `${fn.ref}/${fn.slug}`;
    // A function deleted and created again starts at version 1 anew: the id tells them apart.
    if (this.runtime.has(fn) && this.loadedIds.get(slot) === id) return Promise.resolve();
    const key = `${slot}@${fn.version}#${id}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        const { rows } = await this.pool.query<{ code: string }>(
          'SELECT code FROM functions WHERE id = $1 AND version = $2',
          [id, fn.version],
        );
        if (!rows[0]) throw new Error(`version ${fn.version} of ${key} is no longer stored`);
        if (this.runtime.has(fn)) await this.runtime.remove(fn.ref, fn.slug);
        await this.runtime.deploy({ ...fn, code: rows[0].code, limits });
        this.loadedIds.set(slot, id);
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private async stop(ref: string | null): Promise<void> {
    try {
      if (ref === null) {
        for (const key of Object.keys(this.runtime.stats().workers)) {
          await this.runtime.remove(key.split('/', 1)[0]!);
        }
      } else {
        await this.runtime.remove(ref);
      }
    } catch (err) {
      this.logger.warn({ err, ref }, 'Function processes not stopped');
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.runtime.close();
  }
}
