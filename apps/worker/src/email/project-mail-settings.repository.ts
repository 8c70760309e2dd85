import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Project, ProjectAuthConfig, ProjectStatus } from '@baseplate/control-db';
import { SecretBox } from '@baseplate/security';
import { ProjectSmtpSettings } from './delivery-plan';

export interface ProjectMailSettings {
  status: ProjectStatus;
  /** null: the project has no project_auth_configs row (its defaults: no SMTP). */
  smtp: ProjectSmtpSettings | null;
}

/** A project's SMTP settings from the control database, the password unsealed with MASTER_KEY. */
@Injectable()
export class ProjectMailSettingsRepository {
  private readonly box: SecretBox;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    @InjectRepository(ProjectAuthConfig) private readonly configs: Repository<ProjectAuthConfig>,
  ) {
    this.box = new SecretBox(config.masterKey);
  }

  /** null: no such project (never created, or deleted since the job was enqueued). */
  async find(ref: string): Promise<ProjectMailSettings | null> {
    const project = await this.projects.findOne({
      select: { ref: true, status: true },
      where: { ref },
    });
    if (!project) return null;
    const c = await this.configs.findOneBy({ projectRef: ref });
    if (!c) return { status: project.status, smtp: null };
    return {
      status: project.status,
      smtp: {
        host: c.smtpHost,
        port: c.smtpPort,
        user: c.smtpUser,
        // Unsealed only when it will be used.
        pass: c.smtpHost && c.smtpPassEnc ? this.box.open(c.smtpPassEnc) : null,
        adminEmail: c.smtpAdminEmail,
        senderName: c.smtpSenderName,
      },
    };
  }
}
