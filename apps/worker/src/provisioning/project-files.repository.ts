import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { isProjectRef } from '@baseplate/security';

/** What a project keeps on disk: stored files and deployed function bundles. */
@Injectable()
export class ProjectFilesRepository {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async remove(ref: string): Promise<void> {
    // The ref becomes a path segment: anything but a well-formed ref could climb out.
    if (!isProjectRef(ref)) throw new Error(`Refusing to remove files of malformed ref "${ref}"`);
    await rm(join(this.config.storageDir, ref), { recursive: true, force: true });
    await rm(join(this.config.functionsDir, ref), { recursive: true, force: true });
  }
}
