import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { CONTROL_ENTITIES } from './entities';

/** TypeORM over the control database. The SQL migrations own the schema: synchronize stays off. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        type: 'postgres' as const,
        url: config.databaseUrl,
        entities: CONTROL_ENTITIES,
        synchronize: false,
        migrationsRun: false,
        logging: false,
        extra: { max: 10 },
        // Fail a boot against an unreachable database in seconds, not TypeORM's default ~27 s.
        retryAttempts: 2,
        retryDelay: 1000,
      }),
    }),
    TypeOrmModule.forFeature(CONTROL_ENTITIES),
  ],
  exports: [TypeOrmModule],
})
export class ControlDbModule {}
