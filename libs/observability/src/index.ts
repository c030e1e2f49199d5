export * from './logger';
export * from './error-fields';
export * from './temporal-logger';
export * from './nest-logger';
export * from './metrics';
export * from './metrics-server';
export * from './tracing';
export * from './known-secrets';
