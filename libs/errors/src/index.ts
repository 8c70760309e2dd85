export * from './app-error';
export * from './http-error-body';
export * from './normalize-error';
export * from './platform-exception.filter';
