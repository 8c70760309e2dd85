export * from './errors';
export * from './passwords';
export * from './tokens';
export * from './users';
export * from './store';
export * from './password-hashes';
