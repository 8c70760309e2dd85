import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { CREATE_PROJECT_STEPS } from '@baseplate/jobs';
import { isProjectRef } from '@baseplate/security';
import { ProjectDatabaseRepository } from './project-database.repository';
import { ProjectEventsRepository } from './project-events.repository';
import { ProjectFilesRepository } from './project-files.repository';
import { ProjectSecretsRepository } from './project-secrets.repository';
import { ProjectRepository } from './project.repository';

/** Receives create-project progress (percent) as each step completes. */
export type ProgressReporter = (percent: number) => Promise<void>;

export type CreateOutcome = 'created' | 'already-active' | 'skipped';
export type DeleteOutcome = 'deleted' | 'already-gone' | 'skipped';
export type RotateOutcome = 'rotated' | 'already-rotated' | 'skipped';

const MAX_REASON_LENGTH = 500;
const MAX_LISTED_FAILURES = 5;

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The provisioning rules. Every job may be delivered again after a crash at any point,
 * so each step either finds its work done or does it: secrets are sealed only where
 * absent, the database is created only if missing, the finish is repeatable, and the
 * last step flips the status only from COMING_UP (or INIT_FAILED, when retried by hand).
 */
@Injectable()
export class ProjectProvisioner {
  private readonly logger = new Logger(ProjectProvisioner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly projects: ProjectRepository,
    private readonly databases: ProjectDatabaseRepository,
    private readonly files: ProjectFilesRepository,
    private readonly secrets: ProjectSecretsRepository,
    private readonly events: ProjectEventsRepository,
  ) {}

  async createProject(ref: string, report: ProgressReporter): Promise<CreateOutcome> {
    if (!isProjectRef(ref)) return 'skipped';
    return this.projects.withProjectLock(ref, async () => {
      const row = await this.projects.find(ref);
      if (!row || row.status === 'GOING_DOWN') return 'skipped';
      if (row.status === 'ACTIVE_HEALTHY') return 'already-active';

      const adminPassword = await this.sealSecrets(ref);
      await this.stepDone(ref, CREATE_PROJECT_STEPS.secretsSealed, report);
      const created = await this.databases.createFromTemplate(ref);
      this.logger.log(`${ref}: database ${created ? 'created' : 'already existed'}`);
      await this.stepDone(ref, CREATE_PROJECT_STEPS.databaseCreated, report);
      await this.databases.finish(ref, adminPassword);
      await this.stepDone(ref, CREATE_PROJECT_STEPS.databaseFinished, report);

      if (!(await this.projects.markActive(ref))) return 'skipped';
      await report(CREATE_PROJECT_STEPS.active);
      await this.events.invalidate(ref);
      this.logger.log(`${ref}: ACTIVE_HEALTHY`);
      return 'created';
    });
  }

  /** After the last attempt: the reason is shown to the owner, so it carries no secret. */
  async createProjectFailed(ref: string, error: unknown): Promise<void> {
    if (!isProjectRef(ref)) return;
    const reason = errorMessage(error).slice(0, MAX_REASON_LENGTH);
    if (await this.projects.markInitFailed(ref, reason)) {
      this.logger.warn(`${ref}: INIT_FAILED: ${reason}`);
      await this.events.invalidate(ref);
    }
  }

  /** Database first and row last, so an interrupted delete is found and finished by its retry. */
  async deleteProject(ref: string): Promise<DeleteOutcome> {
    if (!isProjectRef(ref)) return 'skipped';
    return this.projects.withProjectLock(ref, async () => {
      await this.databases.drop(ref);
      await this.files.remove(ref);
      const existed = await this.projects.delete(ref);
      await this.events.invalidate(ref);
      this.logger.log(`${ref}: deleted`);
      return existed ? 'deleted' : 'already-gone';
    });
  }

  /**
   * Publishes the invalidation even when the rotation was already done: the previous
   * delivery may have crashed between its UPDATE and its publish.
   */
  async rotateKeys(ref: string, keysVersion: number): Promise<RotateOutcome> {
    const valid = isProjectRef(ref) && Number.isInteger(keysVersion) && keysVersion > 0;
    const row = valid ? await this.projects.find(ref) : null;
    if (!row || row.status === 'GOING_DOWN') return 'skipped';
    let outcome: RotateOutcome = 'already-rotated';
    if (row.keysVersion < keysVersion) {
      const sealed = this.secrets.sealNewJwtSecret();
      if (await this.projects.rotateJwtSecret(ref, sealed, keysVersion)) {
        outcome = 'rotated';
      } else {
        const now = await this.projects.find(ref);
        if (!now) return 'skipped';
        if (now.keysVersion < keysVersion) {
          // An earlier rotation has not run yet; retrying later keeps versions in order.
          throw new Error(
            `Project ${ref} is at keys version ${now.keysVersion}; version ${keysVersion} waits for ${keysVersion - 1}`,
          );
        }
      }
    }
    await this.events.invalidate(ref);
    return outcome;
  }

  /**
   * Brings every active project database to this worker's project migrations. One
   * failing project does not stop the others; the job fails at the end so BullMQ
   * retries it, and the retry finds the upgraded ones done.
   */
  async upgradeProjects(digest: string): Promise<{ upgraded: number }> {
    const local = this.databases.migrationDigest();
    if (digest !== local) {
      // A worker of another release must not mark the upgrade of a set it does not have as done.
      throw new Error(`This worker has project migrations ${local}; the job asks for ${digest}`);
    }
    await this.databases.ensureTemplate(true);
    const refs = await this.projects.activeRefs();
    const failures: string[] = [];
    for (const ref of refs) {
      try {
        const applied = await this.databases.upgrade(ref);
        if (applied.length > 0) this.logger.log(`${ref}: applied ${applied.join(', ')}`);
      } catch (e) {
        failures.push(`${ref}: ${errorMessage(e)}`);
      }
    }
    if (failures.length > 0) {
      const listed = failures.slice(0, MAX_LISTED_FAILURES).join('; ');
      throw new Error(
        `Upgrade failed for ${failures.length} of ${refs.length} projects: ${listed}`,
      );
    }
    return { upgraded: refs.length };
  }

  /** Seals secrets only where absent, then reads back whichever ones won. */
  private async sealSecrets(ref: string): Promise<string> {
    await this.projects.sealSecretsIfAbsent(
      ref,
      this.secrets.sealNewJwtSecret(),
      this.secrets.sealNewPassword(),
    );
    const row = await this.projects.find(ref);
    if (!row?.jwtSecretEnc || !row.adminPasswordEnc) {
      throw new Error(`Project ${ref} has no sealed secrets after sealing them`);
    }
    return this.secrets.open(row.adminPasswordEnc);
  }

  private async stepDone(ref: string, percent: number, report: ProgressReporter): Promise<void> {
    await this.projects.setProgress(ref, percent);
    await report(percent);
    // Zero in normal use; the resilience test widens the gap so it can kill a worker here.
    if (this.config.provisionStepDelayMs > 0) await sleep(this.config.provisionStepDelayMs);
  }
}
