export * from './entities';
export * from './control-db.module';
export * from './project-context-reader';
