import { Injectable } from '@nestjs/common';
import { Project } from '@baseplate/control-db';
import { API_KEY_ROLES, signApiKey } from '@baseplate/security';
import { ProjectsService } from '../projects/projects.service';
import { ProvisioningQueue } from '../projects/provisioning-queue.service';

export interface ApiKeyView {
  name: string;
  api_key: string;
}

const ROTATION_TIMEOUT_MS = 20_000;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly queue: ProvisioningQueue,
  ) {}

  /** Keys are derived from the sealed secret and their issue time: nothing to store, nothing to leak. */
  async keysOf(project: Project): Promise<ApiKeyView[]> {
    const secret = this.projects.jwtSecret(project);
    const issuedAt = project.keysIssuedAt ?? Math.floor(project.createdAt.getTime() / 1000);
    return Promise.all(
      API_KEY_ROLES.map(async (role) => ({
        name: role,
        api_key: await signApiKey(secret, project.ref, role, issuedAt),
      })),
    );
  }

  async list(accountId: string, ref: string): Promise<ApiKeyView[]> {
    return this.keysOf(await this.projects.getActive(accountId, ref));
  }

  /** New secret, new keys; the worker publishes the invalidation that retires the old keys everywhere. */
  async rotate(accountId: string, ref: string): Promise<ApiKeyView[]> {
    const project = await this.projects.getActive(accountId, ref);
    const job = await this.queue.rotateKeys(ref, project.keysVersion + 1);
    await this.queue.waitFor(job, ROTATION_TIMEOUT_MS, 'Key rotation failed; try again');
    return this.keysOf(await this.projects.getActive(accountId, ref));
  }
}
