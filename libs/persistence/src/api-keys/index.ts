export * from './api-key.repository';
