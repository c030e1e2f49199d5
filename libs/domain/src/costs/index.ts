export * from './prices';
export * from './default-prices';
export * from './usage-range';
export * from './spend-limits';
export * from './spend-limit-body';
