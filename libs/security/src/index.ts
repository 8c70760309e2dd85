export * from './encryption';
export * from './tokens';
export * from './passwords';
export * from './project-jwt';
