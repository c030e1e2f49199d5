export * from './request-hash';
