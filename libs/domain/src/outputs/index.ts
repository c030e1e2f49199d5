export * from './preview';
export * from './json-answer';
export * from './structured-answer';
export * from './schema-example';
export * from './json-depth';
