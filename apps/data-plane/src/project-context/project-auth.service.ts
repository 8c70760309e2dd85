import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { ProjectContext } from '@baseplate/control-db';
import { Errors } from '@baseplate/errors';
import { isProjectRef } from '@baseplate/security';
import { readCredentials, resolveRef } from './credentials';
import { ProjectContextCache } from './project-context.cache';
import { PathRef } from './project-path';
import { ProjectRequestContext } from './project-request-context';
import { verifyCredentials } from './verify-credentials';

export interface ProjectAuthInput {
  pathRef?: PathRef;
  headers: IncomingHttpHeaders;
  credentialsOptional?: boolean;
}

// Refs longer than this are not echoed back in the 404 message.
const MAX_ECHOED_REF = 64;

/**
 * ARCHITECTURE §4 steps 1-3: resolve the project, load its context, verify the caller.
 * Fails with 400 (no project), 404 (unknown), 503 (not active) or 401 (bad credentials).
 */
@Injectable()
export class ProjectAuthService {
  constructor(private readonly contexts: ProjectContextCache) {}

  async authenticate(input: ProjectAuthInput): Promise<ProjectRequestContext> {
    const creds = readCredentials(input.headers);
    const resolved = resolveRef(input.pathRef, creds);
    if (!resolved) throw Errors.projectNotGiven();
    const { context, secret } = await this.activeProject(resolved.ref);
    const caller = await verifyCredentials(creds, context.ref, secret, {
      credentialsOptional: input.credentialsOptional,
    });
    return { ref: context.ref, refSource: resolved.source, context, ...caller };
  }

  private async activeProject(ref: string): Promise<{ context: ProjectContext; secret: string }> {
    if (!isProjectRef(ref)) {
      throw Errors.projectNotFound(
        ref.length > MAX_ECHOED_REF ? `${ref.slice(0, MAX_ECHOED_REF)}…` : ref,
      );
    }
    const context = await this.contexts.get(ref);
    if (!context) throw Errors.projectNotFound(ref);
    if (context.status !== 'ACTIVE_HEALTHY') throw Errors.projectNotReady(ref, context.status);
    // An active project always has a secret; without one nothing could verify, so say "not ready".
    if (!context.jwtSecret) throw Errors.projectNotReady(ref, context.status);
    return { context, secret: context.jwtSecret };
  }
}
