export * from './prices';
export * from './default-prices';
export * from './usage-range';
