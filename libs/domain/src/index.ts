// Pure domain logic: plain functions over the contracts' types, no framework, database or provider.
// placeholders/ and outputs/preview are dependency-free; definition/ (ajv) and conditions/ (re2js) are
// not, so Temporal workflow code must import the former by path, never this barrel.
export * from './errors';
export * from './json-object';
export * from './request-body';
export * from './request-bodies';
export * from './definition';
export * from './placeholders';
export * from './conditions';
export * from './outputs';
export * from './tools';
export * from './schedules';
export * from './runs';
export * from './calls';
export * from './graph';
export * from './assistant';
export * from './mcp';
export * from './identity';
export * from './costs';
export * from './warm-up';
export * from './evaluations';
