export * from './env-schema';
export * from './load-config';
export * from './config.module';
export * from './derived-secrets';
