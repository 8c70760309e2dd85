import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AppConfig, ConfigModule } from '@baseplate/config';
import { ControlDbModule } from '@baseplate/control-db';
import { LoggingModule } from '@baseplate/logging';
import { AccountsController } from './accounts/accounts.controller';
import { AccountsService } from './accounts/accounts.service';
import { PlatformTokenService } from './accounts/platform-token.service';
import { AccessTokenGuard, AccessTokenStrategy, PasswordStrategy } from './accounts/strategies';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AuthConfigController } from './auth-config/auth-config.controller';
import { AuthConfigService } from './auth-config/auth-config.service';
import { AuthEmailsController } from './auth-emails/auth-emails.controller';
import { AuthEmailsService } from './auth-emails/auth-emails.service';
import { DatabaseQueryController } from './database-query/database-query.controller';
import { FunctionsController } from './functions/functions.controller';
import { FunctionsService } from './functions/functions.service';
import { ProjectSqlService } from './projects/project-sql.service';
import { ProjectsController } from './projects/projects.controller';
import { ProjectsService } from './projects/projects.service';
import { ProvisioningQueue } from './projects/provisioning-queue.service';
import { RestConfigController } from './rest-config/rest-config.controller';
import { RestConfigService } from './rest-config/rest-config.service';
import { SecretsController } from './secrets/secrets.controller';
import { SecretsService } from './secrets/secrets.service';

@Module({})
export class ControlPlaneModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot('control-plane'),
        ControlDbModule,
        PassportModule,
      ],
      controllers: [
        AccountsController,
        ProjectsController,
        ApiKeysController,
        SecretsController,
        AuthConfigController,
        AuthEmailsController,
        RestConfigController,
        DatabaseQueryController,
        FunctionsController,
      ],
      providers: [
        AccountsService,
        PlatformTokenService,
        PasswordStrategy,
        AccessTokenStrategy,
        { provide: APP_GUARD, useClass: AccessTokenGuard },
        ProvisioningQueue,
        ProjectsService,
        ProjectSqlService,
        ApiKeysService,
        SecretsService,
        AuthConfigService,
        AuthEmailsService,
        RestConfigService,
        FunctionsService,
      ],
    };
  }
}
