import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Repository } from 'typeorm';
import { EdgeFunction, FunctionInvocation, ProjectFunctionConfig } from '@baseplate/control-db';
import { Errors } from '@baseplate/errors';
import { ProjectsService } from '../projects/projects.service';
import { ProvisioningQueue } from '../projects/provisioning-queue.service';
import {
  CreateFunctionDto,
  FunctionConfigResponse,
  FunctionResponse,
  InvocationResponse,
  UpdateFunctionConfigDto,
  UpdateFunctionDto,
} from './dto/functions.dto';

/** How long a deploy request waits for the worker (compile + load check + store). */
const DEPLOY_TIMEOUT_MS = 30_000;

const view = (f: EdgeFunction): FunctionResponse => ({
  id: f.id,
  slug: f.slug,
  name: f.name,
  version: f.version,
  status: f.status,
  created_at: f.createdAt.toISOString(),
  updated_at: f.updatedAt.toISOString(),
});

const configView = (c: ProjectFunctionConfig): FunctionConfigResponse => ({
  timeout_ms: c.timeoutMs,
  memory_mb: c.memoryMb,
  max_payload_bytes: c.maxPayloadBytes,
  max_concurrency: c.maxConcurrency,
});

/**
 * Edge functions of a project: deploys go through the worker's `functions` queue and the
 * request waits for the outcome, so a compile or load error is the request's 400 and the
 * previous version keeps serving.
 */
@Injectable()
export class FunctionsService {
  private readonly logger = new Logger(FunctionsService.name);

  constructor(
    @InjectRepository(EdgeFunction) private readonly functions: Repository<EdgeFunction>,
    @InjectRepository(FunctionInvocation)
    private readonly invocations: Repository<FunctionInvocation>,
    @InjectRepository(ProjectFunctionConfig)
    private readonly configs: Repository<ProjectFunctionConfig>,
    private readonly projects: ProjectsService,
    private readonly queue: ProvisioningQueue,
  ) {}

  async list(accountId: string, ref: string): Promise<FunctionResponse[]> {
    await this.projects.getOwned(accountId, ref);
    const rows = await this.functions.find({
      where: { projectRef: ref },
      order: { createdAt: 'ASC', slug: 'ASC' },
    });
    return rows.map(view);
  }

  async get(accountId: string, ref: string, slug: string): Promise<FunctionResponse> {
    await this.projects.getOwned(accountId, ref);
    return view(await this.find(ref, slug));
  }

  async body(accountId: string, ref: string, slug: string): Promise<string> {
    await this.projects.getOwned(accountId, ref);
    return (await this.find(ref, slug)).source;
  }

  async create(accountId: string, ref: string, dto: CreateFunctionDto): Promise<FunctionResponse> {
    await this.projects.getActive(accountId, ref);
    if (await this.functions.existsBy({ projectRef: ref, slug: dto.slug })) {
      throw Errors.conflict(
        `Function ${dto.slug} already exists; PATCH it to deploy a new version`,
      );
    }
    await this.deploy(ref, dto.slug, dto.name, dto.body, 0);
    return view(await this.find(ref, dto.slug));
  }

  async update(
    accountId: string,
    ref: string,
    slug: string,
    dto: UpdateFunctionDto,
  ): Promise<FunctionResponse> {
    await this.projects.getActive(accountId, ref);
    const current = await this.find(ref, slug);
    if (dto.body !== undefined) {
      await this.deploy(ref, slug, dto.name ?? current.name, dto.body, current.version);
    } else if (dto.name !== undefined) {
      await this.functions.update({ id: current.id }, { name: dto.name });
    }
    return view(await this.find(ref, slug));
  }

  async remove(accountId: string, ref: string, slug: string): Promise<FunctionResponse> {
    await this.projects.getOwned(accountId, ref);
    const current = await this.find(ref, slug);
    await this.functions.delete({ id: current.id });
    // Data planes stop its processes when they hear of it; the row is gone either way.
    await this.queue.invalidate(ref).catch((e: unknown) => {
      this.logger.warn(
        `Function ${slug} of ${ref} deleted, invalidation not published: ${String(e)}`,
      );
    });
    return view(current);
  }

  async logs(
    accountId: string,
    ref: string,
    slug: string,
    limit: number,
  ): Promise<InvocationResponse[]> {
    await this.projects.getOwned(accountId, ref);
    const fn = await this.find(ref, slug);
    const rows = await this.invocations.find({
      where: { functionId: fn.id },
      order: { id: 'DESC' },
      take: limit,
    });
    return rows.map((r) => ({
      id: Number(r.id),
      version: r.version,
      status: r.status,
      http_status: r.httpStatus,
      duration_ms: r.durationMs,
      logs: r.logs,
      created_at: r.createdAt.toISOString(),
    }));
  }

  async getConfig(accountId: string, ref: string): Promise<FunctionConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    return configView(await this.loadConfig(ref));
  }

  async updateConfig(
    accountId: string,
    ref: string,
    dto: UpdateFunctionConfigDto,
  ): Promise<FunctionConfigResponse> {
    await this.projects.getOwned(accountId, ref);
    await this.loadConfig(ref);
    const changes: Partial<ProjectFunctionConfig> = {
      ...(dto.timeout_ms !== undefined ? { timeoutMs: dto.timeout_ms } : {}),
      ...(dto.memory_mb !== undefined ? { memoryMb: dto.memory_mb } : {}),
      ...(dto.max_payload_bytes !== undefined ? { maxPayloadBytes: dto.max_payload_bytes } : {}),
      ...(dto.max_concurrency !== undefined ? { maxConcurrency: dto.max_concurrency } : {}),
    };
    if (Object.keys(changes).length > 0) {
      await this.configs.update({ projectRef: ref }, changes);
      await this.queue.invalidate(ref).catch((e: unknown) => {
        this.logger.warn(
          `Function limits of ${ref} saved, invalidation not published: ${String(e)}`,
        );
      });
    }
    return configView(await this.loadConfig(ref));
  }

  private async deploy(
    ref: string,
    slug: string,
    name: string,
    source: string,
    expectedVersion: number,
  ): Promise<void> {
    const digest = createHash('sha256')
      .update(name)
      .update('\0')
      .update(source)
      .digest('hex')
      .slice(0, 16);
    const result = await this.queue.deployFunction(
      { ref, slug, name, source, expectedVersion },
      digest,
      DEPLOY_TIMEOUT_MS,
    );
    if (result.ok) return;
    if (result.reason === 'conflict') throw Errors.conflict(result.error);
    throw Errors.badRequest(result.error);
  }

  private async find(ref: string, slug: string): Promise<EdgeFunction> {
    const found = await this.functions.findOneBy({ projectRef: ref, slug });
    if (!found) throw Errors.notFound(`Function ${slug} not found`);
    return found;
  }

  private async loadConfig(ref: string): Promise<ProjectFunctionConfig> {
    const found = await this.configs.findOneBy({ projectRef: ref });
    if (found) return found;
    await this.configs
      .createQueryBuilder()
      .insert()
      .values({ projectRef: ref })
      .orIgnore()
      .execute();
    return (await this.configs.findOneBy({ projectRef: ref }))!;
  }
}
