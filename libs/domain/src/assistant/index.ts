export * from './candidate';
export * from './clarification';
export * from './events';
export * from './generation';
export * from './assistant-bodies';
