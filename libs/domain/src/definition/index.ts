export * from './catalog';
export * from './chain';
export * from './parse';
export { fieldPath, throwIssues, type Issue } from './issues';
export { jsonSchemaErrors, jsonSchemaProblem } from './json-schema';
export { STEP_SCHEMAS, STOP_CONDITION_SCHEMA, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA } from './step-schemas';
export { loopSourceRef } from './loop';
export { summarySourceOf, type SummarySource } from './step-summary';
export { modelPolicyIssues, type ModelPolicy } from './model-policy';
