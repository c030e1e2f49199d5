export * from './user-ids';
export * from './uuids';
