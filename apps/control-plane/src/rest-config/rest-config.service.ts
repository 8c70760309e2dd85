import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ProjectRestConfig, REST_CONFIG_DEFAULTS } from '@baseplate/control-db';
import { ProjectsService } from '../projects/projects.service';
import { ProvisioningQueue } from '../projects/provisioning-queue.service';
import { RestConfigResponse, UpdateRestConfigDto } from './dto/rest-config.dto';
import { normalizeSchemaList } from './schema-list';

type Settings = Pick<ProjectRestConfig, 'dbSchema' | 'dbExtraSearchPath' | 'maxRows'>;

@Injectable()
export class RestConfigService {
  private readonly logger = new Logger(RestConfigService.name);

  constructor(
    @InjectRepository(ProjectRestConfig) private readonly configs: Repository<ProjectRestConfig>,
    private readonly projects: ProjectsService,
    private readonly queue: ProvisioningQueue,
  ) {}

  async get(accountId: string, ref: string): Promise<RestConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    return this.view(await this.load(ref));
  }

  async update(
    accountId: string,
    ref: string,
    dto: UpdateRestConfigDto,
  ): Promise<RestConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    const changes: Partial<Settings> = {};
    if (dto.db_schema !== undefined) changes.dbSchema = normalizeSchemaList(dto.db_schema);
    if (dto.db_extra_search_path !== undefined) {
      changes.dbExtraSearchPath = normalizeSchemaList(dto.db_extra_search_path);
    }
    if (dto.max_rows !== undefined) changes.maxRows = dto.max_rows;
    if (Object.keys(changes).length > 0) {
      // No row until the first change: one upsert, so concurrent first PATCHes cannot collide.
      await this.configs.upsert({ projectRef: ref, ...changes }, ['projectRef']);
      // The data plane reads these with the project context: drop its cached copy. The change
      // is saved either way; without Redis it reaches data planes when their cached context
      // expires (PROJECT_CONTEXT_TTL_MS), so a failed publish must not fail the request.
      await this.queue.invalidate(ref).catch((e: unknown) => {
        this.logger.warn(`REST config of ${ref} saved, invalidation not published: ${String(e)}`);
      });
    }
    return this.view(await this.load(ref));
  }

  /** The project's settings; a project that never changed them has the defaults. */
  private async load(ref: string): Promise<Settings> {
    return (await this.configs.findOneBy({ projectRef: ref })) ?? REST_CONFIG_DEFAULTS;
  }

  private view(c: Settings): RestConfigResponse {
    return {
      db_schema: c.dbSchema,
      db_extra_search_path: c.dbExtraSearchPath,
      max_rows: c.maxRows,
    };
  }
}
