export * from './api-key.service';
export * from './auth.decorators';
export * from './auth.module';
