// What later data-plane features (REST, auth, storage, functions) build on.
export * from './project-request-context';
export * from './project-database.service';
export * from './project-context.module';
export * from './project-context.cache';
export * from './project-auth.service';
export * from './project-path';
export { requestHeadersForSql } from './request-headers';
