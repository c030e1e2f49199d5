export * from './summary';
export * from './json-answer';
