import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Project, ProjectAuthConfig } from '@baseplate/control-db';
import { projectDbName } from '@baseplate/database';
import { Errors, isAppError } from '@baseplate/errors';
import { generateProjectRef, isProjectRef, SecretBox } from '@baseplate/security';
import { ProjectResponse } from './dto/projects.dto';
import { ProvisioningQueue } from './provisioning-queue.service';

/** Ownership rules of projects. Another account's project and a missing one look the same: 404. */
@Injectable()
export class ProjectsService {
  private readonly logger = new Logger(ProjectsService.name);
  readonly box: SecretBox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: ProvisioningQueue,
  ) {
    this.box = new SecretBox(config.masterKey);
  }

  view(p: Project): ProjectResponse {
    return {
      id: p.ref,
      name: p.name,
      status: p.status,
      created_at: p.createdAt.toISOString(),
      endpoint: `${this.config.publicUrl}/projects/${p.ref}`,
      progress: p.progress,
      status_reason: p.statusReason,
    };
  }

  async create(accountId: string, name: string): Promise<Project> {
    const ref = generateProjectRef();
    await this.dataSource.transaction(async (tx) => {
      await tx.save(
        tx.create(Project, {
          ref,
          accountId,
          name,
          status: 'COMING_UP',
          dbName: projectDbName(ref),
        }),
      );
      await tx.save(tx.create(ProjectAuthConfig, { projectRef: ref }));
    });
    try {
      // Bounded: with Redis away this fails within seconds and the catch takes the row back.
      await this.queue.createProject(ref);
    } catch (e) {
      // Without its job the project would wait forever: take the row back and say so.
      await this.projects.delete({ ref });
      this.logger.error(`Could not enqueue create-project for ${ref}: ${(e as Error).message}`);
      throw isAppError(e) ? e : Errors.internal(e);
    }
    return (await this.projects.findOneBy({ ref }))!;
  }

  list(accountId: string): Promise<Project[]> {
    return this.projects.find({ where: { accountId }, order: { createdAt: 'ASC' } });
  }

  async getOwned(accountId: string, ref: string): Promise<Project> {
    const project = isProjectRef(ref) ? await this.projects.findOneBy({ ref, accountId }) : null;
    if (!project) throw Errors.projectNotFound(ref);
    return project;
  }

  /** An owned project that has finished provisioning and is not going away. */
  async getActive(accountId: string, ref: string): Promise<Project> {
    const project = await this.getOwned(accountId, ref);
    if (project.status !== 'ACTIVE_HEALTHY') throw Errors.projectNotReady(ref, project.status);
    return project;
  }

  async remove(accountId: string, ref: string): Promise<Project> {
    const project = await this.getOwned(accountId, ref);
    if (project.status !== 'GOING_DOWN') {
      await this.projects.update({ ref }, { status: 'GOING_DOWN' });
      project.status = 'GOING_DOWN';
    }
    // Data planes stop serving it now, before the worker drops the database.
    await this.queue.invalidate(ref);
    await this.queue.deleteProject(ref);
    return project;
  }

  /** Decrypted JWT secret of an active project; never leaves the process except as signed keys. */
  jwtSecret(project: Project): string {
    if (!project.jwtSecretEnc) throw Errors.projectNotReady(project.ref, project.status);
    return this.box.open(project.jwtSecretEnc);
  }

  adminPassword(project: Project): string {
    if (!project.adminPasswordEnc) throw Errors.projectNotReady(project.ref, project.status);
    return this.box.open(project.adminPasswordEnc);
  }
}
