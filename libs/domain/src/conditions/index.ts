export * from './conditions';
export * from './rules';
