import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@baseplate/config';
import { ControlDbModule } from '@baseplate/control-db';
import { LoggingModule } from '@baseplate/logging';
import { EmailModule } from './email/email.module';
import { FunctionsModule } from './functions/functions.module';
import { ProvisioningModule } from './provisioning/provisioning.module';
import { WorkerRedisModule } from './worker-redis';

/** The worker: no HTTP, only the BullMQ processors and what they need. */
@Module({})
export class WorkerModule {
  /** `config` is given by tests; otherwise the environment is parsed once. */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot('worker'),
        ControlDbModule,
        WorkerRedisModule,
        ProvisioningModule,
        EmailModule,
        FunctionsModule,
      ],
    };
  }
}
