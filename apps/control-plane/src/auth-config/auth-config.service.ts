import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ProjectAuthConfig } from '@baseplate/control-db';
import { ProjectsService } from '../projects/projects.service';
import { ProvisioningQueue } from '../projects/provisioning-queue.service';
import { AuthConfigResponse, UpdateAuthConfigDto } from './dto/auth-config.dto';

type Fields = Omit<ProjectAuthConfig, 'projectRef' | 'createdAt' | 'updatedAt' | 'smtpPassEnc'>;

// Wire name → entity property, for every field besides smtp_pass (which is sealed, never read back).
const FIELDS: Record<keyof AuthConfigResponse, keyof Fields> = {
  site_url: 'siteUrl',
  uri_allow_list: 'uriAllowList',
  mailer_autoconfirm: 'mailerAutoconfirm',
  jwt_exp: 'jwtExp',
  password_min_length: 'passwordMinLength',
  smtp_host: 'smtpHost',
  smtp_port: 'smtpPort',
  smtp_user: 'smtpUser',
  smtp_admin_email: 'smtpAdminEmail',
  smtp_sender_name: 'smtpSenderName',
};

@Injectable()
export class AuthConfigService {
  private readonly logger = new Logger(AuthConfigService.name);

  constructor(
    @InjectRepository(ProjectAuthConfig) private readonly configs: Repository<ProjectAuthConfig>,
    private readonly projects: ProjectsService,
    private readonly queue: ProvisioningQueue,
  ) {}

  async get(accountId: string, ref: string): Promise<AuthConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    return this.view(await this.load(ref));
  }

  async update(
    accountId: string,
    ref: string,
    dto: UpdateAuthConfigDto,
  ): Promise<AuthConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    const changes: Partial<ProjectAuthConfig> = {};
    for (const [wire, prop] of Object.entries(FIELDS) as [
      keyof AuthConfigResponse,
      keyof Fields,
    ][]) {
      const value = dto[wire];
      if (value !== undefined) (changes as Record<string, unknown>)[prop] = value;
    }
    if (dto.smtp_pass !== undefined) {
      changes.smtpPassEnc = dto.smtp_pass === null ? null : this.projects.box.seal(dto.smtp_pass);
    }
    if (Object.keys(changes).length > 0) {
      await this.configs.update({ projectRef: ref }, changes);
      // Auth settings apply at runtime: data planes reload them on their next request. The
      // change is saved either way; without Redis it reaches them when their cached context
      // expires (PROJECT_CONTEXT_TTL_MS), so a failed publish must not fail the request.
      await this.queue.invalidate(ref).catch((e: unknown) => {
        this.logger.warn(`Auth config of ${ref} saved, invalidation not published: ${String(e)}`);
      });
    }
    return this.view(await this.load(ref));
  }

  private async load(ref: string): Promise<ProjectAuthConfig> {
    const found = await this.configs.findOneBy({ projectRef: ref });
    return found ?? this.configs.save(this.configs.create({ projectRef: ref }));
  }

  private view(c: ProjectAuthConfig): AuthConfigResponse {
    const out: Record<string, unknown> = {};
    for (const [wire, prop] of Object.entries(FIELDS)) out[wire] = c[prop];
    return out as unknown as AuthConfigResponse;
  }
}
