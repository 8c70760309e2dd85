import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { createBlobStore } from '@baseplate/storage';
import { ProjectContextModule } from '../project-context';
import { BucketsController } from './buckets.controller';
import { ObjectsController } from './objects.controller';
import { BLOB_STORE, StorageService } from './storage.service';

/** `/storage/v1`: buckets and files per project (issue 5). */
@Module({
  imports: [ProjectContextModule],
  controllers: [BucketsController, ObjectsController],
  providers: [
    StorageService,
    {
      provide: BLOB_STORE,
      useFactory: (config: AppConfig) => createBlobStore(config),
      inject: [APP_CONFIG],
    },
  ],
})
export class StorageModule {}
