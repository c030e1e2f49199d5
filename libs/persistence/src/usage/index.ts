export * from './usage.repository';
export * from './typeorm-usage.repository';
export * from './spend.repository';
export * from './typeorm-spend.repository';
