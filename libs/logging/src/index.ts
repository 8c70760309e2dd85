export * from './logging.module';
export * from './run-app';
