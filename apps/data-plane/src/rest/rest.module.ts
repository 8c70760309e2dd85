import { Module } from '@nestjs/common';
import { RestEngine } from '@baseplate/rest-engine';
import { ProjectContextModule } from '../project-context';
import { RestController } from './rest.controller';

/** The REST API; one engine (and so one schema cache store) per process. */
@Module({
  imports: [ProjectContextModule],
  controllers: [RestController],
  providers: [{ provide: RestEngine, useFactory: () => new RestEngine() }],
})
export class RestModule {}
