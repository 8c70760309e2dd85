import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import {
  createProjectDatabase,
  dropProjectDatabase,
  ensureTemplate,
  finishProjectDatabase,
  migrationSetDigest,
  readMigrations,
  upgradeProjectDatabase,
} from '@baseplate/database';

/** The project databases and roles on the cluster; every operation is idempotent. */
@Injectable()
export class ProjectDatabaseRepository {
  private templateReady?: Promise<void>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Brings the template to the newest project migration. Cached per process: once this
   * process has seen it current, only a newer deploy can move it, and that deploy's
   * worker runs upgrade-projects (`refresh`) at start.
   */
  async ensureTemplate(refresh = false): Promise<void> {
    if (refresh || !this.templateReady) {
      const attempt = ensureTemplate(this.config.databaseUrl, this.config.projectTemplateDb).then(
        () => undefined,
      );
      this.templateReady = attempt;
      // A failed attempt must not be cached, or every later job would fail the same way.
      attempt.catch(() => {
        if (this.templateReady === attempt) this.templateReady = undefined;
      });
    }
    await this.templateReady;
  }

  /** Returns true if this call created the database, false if it existed already. */
  async createFromTemplate(ref: string): Promise<boolean> {
    await this.ensureTemplate();
    return createProjectDatabase(this.config.databaseUrl, ref, this.config.projectTemplateDb);
  }

  finish(ref: string, adminPassword: string): Promise<void> {
    return finishProjectDatabase(this.config.databaseUrl, ref, adminPassword);
  }

  drop(ref: string): Promise<void> {
    return dropProjectDatabase(this.config.databaseUrl, ref);
  }

  /** Digest of the project migrations this process ships (the upgrade-projects job id). */
  migrationDigest(): string {
    return migrationSetDigest(readMigrations('project'));
  }

  upgrade(ref: string): Promise<string[]> {
    return upgradeProjectDatabase(this.config.databaseUrl, ref);
  }
}
