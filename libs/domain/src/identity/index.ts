export * from './user-ids';
