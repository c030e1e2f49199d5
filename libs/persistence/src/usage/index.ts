export * from './usage.repository';
export * from './typeorm-usage.repository';
