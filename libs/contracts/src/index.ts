export * from './definition';
export * from './run';
export * from './engine';
export * from './graph';
export * from './human-input';
export * from './conversation';
export * from './chain-graph';
export * from './step-summary';
