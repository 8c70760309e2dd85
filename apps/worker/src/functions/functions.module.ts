import { Module } from '@nestjs/common';
import { ProjectEventsRepository } from '../provisioning/project-events.repository';
import { FunctionDeployer } from './function-deployer.service';
import { FunctionsProcessor } from './functions.processor';
import { FunctionsRepository } from './functions.repository';

/** The `functions` queue: compile, load-check and store a function version. */
@Module({
  providers: [FunctionsRepository, ProjectEventsRepository, FunctionDeployer, FunctionsProcessor],
})
export class FunctionsModule {}
