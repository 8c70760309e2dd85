import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { isProjectRef } from '@baseplate/security';
import { type BlobStore, createBlobStore } from '@baseplate/storage';

/** What a project keeps outside its database: stored files (fs or S3) and function bundles. */
@Injectable()
export class ProjectFilesRepository {
  private readonly blobs: BlobStore;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.blobs = createBlobStore(config);
  }

  async remove(ref: string): Promise<void> {
    // The ref becomes a path segment: anything but a well-formed ref could climb out.
    if (!isProjectRef(ref)) throw new Error(`Refusing to remove files of malformed ref "${ref}"`);
    await this.blobs.deleteAll(ref);
    await rm(join(this.config.functionsDir, ref), { recursive: true, force: true });
  }
}
