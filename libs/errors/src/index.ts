export * from './app-error';
export * from './http-error-body';
