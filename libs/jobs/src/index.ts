export * from './jobs';
export * from './invalidation';
export * from './redis';
