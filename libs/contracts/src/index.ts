export * from './definition';
export * from './run';
