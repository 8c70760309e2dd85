export * from './sql';
export * from './migration-runner';
export * from './cluster-admin';
export * from './pool-manager';
export * from './request-transaction';
export * from './bootstrap';
export * from './pipeline';
