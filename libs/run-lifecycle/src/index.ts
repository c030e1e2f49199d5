export * from './run-lifecycle.module';
