import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@baseplate/config';
import { LoggingModule } from '@baseplate/logging';
import { sentUrlOf } from './project-context/project-path';
import { HealthModule } from './health/health.module';
import { DataPlaneExceptionFilter } from './http/exception.filter';
import { ProjectContextModule } from './project-context/project-context.module';
import { RestModule } from './rest/rest.module';
import { AuthModule } from './auth/auth.module';
import { StorageModule } from './storage/storage.module';
import { FunctionsModule } from './functions/functions.module';

@Module({})
export class DataPlaneModule {
  /**
   * The data plane's root module; `config` is given by tests, else the environment is
   * parsed. Features (REST, auth, storage, functions) are added to `imports` here.
   */
  static forRoot(config?: AppConfig, extraImports: ModuleMetadata['imports'] = []): DynamicModule {
    return {
      module: DataPlaneModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot('data-plane', { requestUrl: sentUrlOf }),
        HealthModule,
        ProjectContextModule,
        RestModule,
        AuthModule,
        StorageModule,
        FunctionsModule,
        ...extraImports,
      ],
      providers: [{ provide: APP_FILTER, useClass: DataPlaneExceptionFilter }],
    };
  }
}
