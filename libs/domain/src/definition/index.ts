export * from './catalog';
export * from './chain';
export * from './parse';
export { fieldPath, throwIssues, type Issue } from './issues';
export { jsonSchemaErrors, jsonSchemaProblem, schemaIssues, schemaProblemText, userSchemaProblem } from './json-schema';
export { SCHEMA_LIMITS, type SchemaLimits, type SchemaProblem } from './schema-bounds';
export * from './step-type-details';
export { STEP_SCHEMAS, STOP_CONDITION_SCHEMA, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA } from './step-schemas';
export { loopSourceRef } from './loop';
export {
  calledWorkflows,
  subWorkflowIssues,
  subWorkflowSteps,
  WORKFLOW_TOOL_PREFIX,
  workflowToolNames,
  workflowToolUuid,
} from './sub-workflows';
export { summarySourceOf, type SummarySource } from './step-summary';
export { allowedModelOf, modelChoiceIssues, modelPolicyIssues, providerOf, type AllowedModel, type ModelPolicy } from './model-policy';
export * from './versions';
