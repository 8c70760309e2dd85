export * from './app-error';
export * from './http-error-body';
export * from './platform-exception.filter';
