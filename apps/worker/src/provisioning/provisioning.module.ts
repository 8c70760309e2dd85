import { Module } from '@nestjs/common';
import { ProvisioningProcessor } from '../processors/provisioning.processor';
import { ProjectDatabaseRepository } from './project-database.repository';
import { ProjectEventsRepository } from './project-events.repository';
import { ProjectFilesRepository } from './project-files.repository';
import { ProjectProvisioner } from './project-provisioner.service';
import { ProjectSecretsRepository } from './project-secrets.repository';
import { ProjectRepository } from './project.repository';
import { ProvisioningQueueService } from './provisioning-queue.service';

@Module({
  providers: [
    ProjectRepository,
    ProjectDatabaseRepository,
    ProjectFilesRepository,
    ProjectSecretsRepository,
    ProjectEventsRepository,
    ProjectProvisioner,
    ProvisioningQueueService,
    ProvisioningProcessor,
  ],
})
export class ProvisioningModule {}
