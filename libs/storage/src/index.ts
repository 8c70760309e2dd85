export * from './blob';
export * from './errors';
export * from './names';
export * from './signing';
export * from './store';
