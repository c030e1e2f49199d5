export * from './catalog';
export * from './chain';
export * from './parse';
export { jsonSchemaProblem } from './json-schema';
export { STEP_SCHEMAS, TRIGGER_SCHEMAS } from './schemas';
