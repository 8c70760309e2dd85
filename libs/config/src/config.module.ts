import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './env-schema';
import { loadConfig } from './load-config';

/** Injection token of the frozen, validated configuration object. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Uses the given config (tests) or parses the environment once. */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
