import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { ProjectContextReader } from '@baseplate/control-db';
import { SecretBox } from '@baseplate/security';
import { ProjectAuthService } from './project-auth.service';
import { ProjectContextCache } from './project-context.cache';
import { ProjectDatabaseService } from './project-database.service';
import { ProjectInvalidationListener } from './project-invalidation.listener';

/** The data plane's small pool on the control database: it only reads project rows. */
export const CONTROL_DB_POOL = Symbol('CONTROL_DB_POOL');
const CONTROL_POOL_MAX = 5;

@Module({
  providers: [
    {
      provide: CONTROL_DB_POOL,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const pool = new Pool({
          connectionString: config.databaseUrl,
          max: CONTROL_POOL_MAX,
          application_name: 'baseplate-data-plane-control',
        });
        // An idle client losing its connection must not crash the process.
        pool.on('error', () => undefined);
        return pool;
      },
    },
    {
      provide: ProjectContextReader,
      inject: [CONTROL_DB_POOL, APP_CONFIG],
      useFactory: (pool: Pool, config: AppConfig) =>
        new ProjectContextReader(pool, new SecretBox(config.masterKey)),
    },
    {
      provide: ProjectContextCache,
      inject: [ProjectContextReader, APP_CONFIG],
      useFactory: (reader: ProjectContextReader, config: AppConfig) =>
        new ProjectContextCache(reader, { ttlMs: config.projectContextTtlMs }),
    },
    ProjectAuthService,
    ProjectDatabaseService,
    ProjectInvalidationListener,
  ],
  exports: [ProjectAuthService, ProjectContextCache, ProjectDatabaseService, CONTROL_DB_POOL],
})
export class ProjectContextModule implements OnModuleDestroy {
  constructor(@Inject(CONTROL_DB_POOL) private readonly controlPool: Pool) {}

  async onModuleDestroy(): Promise<void> {
    await this.controlPool.end().catch(() => undefined);
  }
}
