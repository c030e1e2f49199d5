export * from './definition';
export * from './run';
export * from './engine';
