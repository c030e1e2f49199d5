export * from './app-config';
export * from './config.module';
export * from './temporal-connection';
export * from './temporal-client';
export * from './provider-limits';
