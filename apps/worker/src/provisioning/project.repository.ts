import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Project } from '@baseplate/control-db';

// Namespace of the per-project advisory locks (first key of the two-key form).
const PROJECT_LOCK_NAMESPACE = 0x70726a; // "prj"
const LOCK_POLL_MS = 100;
const LOCK_WAIT_MS = 15_000;

export class ProjectBusyError extends Error {
  override name = 'ProjectBusyError';
}

/** The project rows of the control database, as the provisioning jobs read and change them. */
@Injectable()
export class ProjectRepository {
  constructor(
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  find(ref: string): Promise<Project | null> {
    return this.projects.findOneBy({ ref });
  }

  /**
   * Runs `fn` while holding a session advisory lock on the project, so a create and a
   * delete of one project never interleave, even on two worker hosts. The lock dies with
   * the connection, so a killed worker never leaves it held. Waiting is bounded: a busy
   * project fails the attempt and BullMQ retries it later with backoff.
   */
  async withProjectLock<T>(ref: string, fn: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const deadline = Date.now() + LOCK_WAIT_MS;
      for (;;) {
        const [row] = (await runner.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
          PROJECT_LOCK_NAMESPACE,
          ref,
        ])) as { ok: boolean }[];
        if (row.ok) break;
        if (Date.now() > deadline)
          throw new ProjectBusyError(`Project ${ref} is busy with another job`);
        await sleep(LOCK_POLL_MS);
      }
      try {
        return await fn();
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1, hashtext($2))', [
          PROJECT_LOCK_NAMESPACE,
          ref,
        ]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Stores the sealed secrets only where none is stored yet, so a retry keeps the first ones. */
  async sealSecretsIfAbsent(
    ref: string,
    jwtSecretEnc: string,
    adminPasswordEnc: string,
  ): Promise<void> {
    await this.update(
      'UPDATE projects SET jwt_secret_enc = $1, updated_at = now() WHERE ref = $2 AND jwt_secret_enc IS NULL',
      [jwtSecretEnc, ref],
    );
    await this.update(
      'UPDATE projects SET admin_password_enc = $1, updated_at = now() WHERE ref = $2 AND admin_password_enc IS NULL',
      [adminPasswordEnc, ref],
    );
  }

  /** Progress only moves forward: a retry re-reporting an early step does not rewind it. */
  async setProgress(ref: string, progress: number): Promise<void> {
    await this.update(
      `UPDATE projects SET progress = GREATEST(progress, $1), updated_at = now()
        WHERE ref = $2 AND status IN ('COMING_UP', 'INIT_FAILED')`,
      [progress, ref],
    );
  }

  /**
   * COMING_UP (or a retried INIT_FAILED) becomes ACTIVE_HEALTHY with keys issued now,
   * unless they were issued already. Returns false when the project is no longer being
   * created (a delete set GOING_DOWN meanwhile), which must not be undone.
   */
  async markActive(ref: string): Promise<boolean> {
    const affected = await this.update(
      `UPDATE projects
          SET status = 'ACTIVE_HEALTHY', status_reason = NULL, progress = 100,
              keys_issued_at = COALESCE(keys_issued_at, extract(epoch FROM now())::bigint),
              keys_version = GREATEST(keys_version, 1), updated_at = now()
        WHERE ref = $1 AND status IN ('COMING_UP', 'INIT_FAILED')`,
      [ref],
    );
    return affected === 1;
  }

  async markInitFailed(ref: string, reason: string): Promise<boolean> {
    const affected = await this.update(
      `UPDATE projects SET status = 'INIT_FAILED', status_reason = $1, updated_at = now()
        WHERE ref = $2 AND status = 'COMING_UP'`,
      [reason, ref],
    );
    return affected === 1;
  }

  /**
   * Installs a new sealed JWT secret as `keysVersion`, only from the version just before
   * it: two deliveries of one rotation, or a late one, change nothing.
   */
  async rotateJwtSecret(ref: string, jwtSecretEnc: string, keysVersion: number): Promise<boolean> {
    const affected = await this.update(
      `UPDATE projects
          SET jwt_secret_enc = $1, keys_issued_at = extract(epoch FROM now())::bigint,
              keys_version = $2, updated_at = now()
        WHERE ref = $3 AND keys_version = $2 - 1`,
      [jwtSecretEnc, keysVersion, ref],
    );
    return affected === 1;
  }

  /** Deletes the row; project_auth_configs goes with it (ON DELETE CASCADE). */
  async delete(ref: string): Promise<boolean> {
    const result = await this.projects.delete({ ref });
    return (result.affected ?? 0) > 0;
  }

  async activeRefs(): Promise<string[]> {
    const rows = await this.projects.find({
      select: { ref: true },
      where: { status: 'ACTIVE_HEALTHY' },
      order: { ref: 'ASC' },
    });
    return rows.map((r) => r.ref);
  }

  private async update(sql: string, params: unknown[]): Promise<number> {
    // TypeORM's postgres driver answers UPDATE and DELETE with [rows, rowCount].
    const [, affected] = (await this.projects.query(sql, params)) as [unknown[], number];
    return affected;
  }
}
