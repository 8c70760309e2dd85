import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import {
  createFunctionRuntime,
  FunctionLoadError,
  type FunctionRuntime,
} from '@baseplate/functions-runtime';
import type { DeployFunctionResult, FunctionsPayloads } from '@baseplate/jobs';
import { ProjectEventsRepository } from '../provisioning/project-events.repository';
import { CompileError, compileFunction, MAX_SOURCE_BYTES } from './function-compiler';
import { FunctionsRepository } from './functions.repository';

/**
 * A deploy: compile, load once in a scratch runtime (a throw at load or a missing handler is
 * found here, not at the first call), store as the next version, and tell the data planes.
 * Until the store, the previous version keeps serving.
 */
@Injectable()
export class FunctionDeployer implements OnModuleDestroy {
  private readonly runtime: FunctionRuntime;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly functions: FunctionsRepository,
    private readonly events: ProjectEventsRepository,
  ) {
    this.runtime = createFunctionRuntime(config);
  }

  async deploy(input: FunctionsPayloads['deploy-function']): Promise<DeployFunctionResult> {
    if (Buffer.byteLength(input.source, 'utf8') > MAX_SOURCE_BYTES) {
      return {
        ok: false,
        reason: 'invalid',
        error: `The source is larger than ${MAX_SOURCE_BYTES} bytes`,
      };
    }
    let code: string;
    try {
      code = await compileFunction(input.source, input.slug);
    } catch (e) {
      if (e instanceof CompileError) return { ok: false, reason: 'invalid', error: e.message };
      throw e;
    }
    const limits = await this.functions.limits(input.ref);
    // A slug of its own: two deploys of one function at once must not remove each other's probe.
    const probe = { ref: input.ref, slug: `probe-${randomBytes(8).toString('hex')}`, version: 1 };
    try {
      await this.runtime.deploy({ ...probe, code, limits });
    } catch (e) {
      if (e instanceof FunctionLoadError) return { ok: false, reason: 'invalid', error: e.message };
      throw e;
    } finally {
      await this.runtime.remove(input.ref, probe.slug);
    }
    const stored = await this.functions.store({ ...input, code });
    if (!stored) {
      return {
        ok: false,
        reason: 'conflict',
        error: 'The function changed while this deploy ran; deploy again',
      };
    }
    await this.events.invalidate(input.ref);
    return { ok: true, ...stored };
  }

  async onModuleDestroy(): Promise<void> {
    await this.runtime.close();
  }
}
