export * from './postgrest-error';
export * from './parse';
