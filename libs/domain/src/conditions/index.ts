export * from './conditions';
export * from './rules';
export * from './linear-regex';
