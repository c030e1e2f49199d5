// JSON Schemas of every step and trigger type's fields: the API validates against them and serves them
// from GET /step-types and /trigger-types so a UI can render forms.
import type { StepType, TriggerType } from '@app/contracts';

type Schema = Record<string, unknown>;

const nonEmpty = { type: 'string', minLength: 1 };

const retryPolicy: Schema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    max_attempts: { type: 'integer', minimum: 1, maximum: 100 },
    initial_interval_seconds: { type: 'number', exclusiveMinimum: 0 },
    backoff_coefficient: { type: 'number', minimum: 1 },
    maximum_interval_seconds: { type: 'number', exclusiveMinimum: 0 },
  },
};

const common = {
  uuid: { type: 'string', format: 'uuid' },
  type: { type: 'string' },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 10000 },
  retry_policy: retryPolicy,
};

const modelFields = {
  model: { ...nonEmpty, maxLength: 200, description: 'Model name at the OpenAI-compatible provider' },
  system_prompt: { ...nonEmpty, description: 'May use <<trigger_output>>, <<step_output.{uuid}>> and $previous_output' },
  output_schema: { type: ['object', 'null'], description: 'JSON Schema the answer must follow' },
};

function stepSchema(properties: Schema, required: string[]): Schema {
  return { type: 'object', additionalProperties: false, properties: { ...common, ...properties }, required: ['name', ...required] };
}

export const STEP_SCHEMAS: Record<StepType, Schema> = {
  custom_llm: stepSchema(modelFields, ['model', 'system_prompt']),
  custom_agent: stepSchema(
    {
      ...modelFields,
      tools: { type: 'array', items: nonEmpty, uniqueItems: true, description: 'Names of registered or built-in tools' },
      max_iterations: { type: ['integer', 'null'], minimum: 1, maximum: 100, description: 'Model turns before the step fails (default 10)' },
    },
    ['model', 'system_prompt'],
  ),
  stop_checker: stepSchema(
    {
      stop_conditions: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['step_definition_uuid', 'extraction_json_path', 'operator', 'target_value'],
          properties: {
            step_definition_uuid: { type: 'string', format: 'uuid' },
            extraction_json_path: { ...nonEmpty, description: 'JSONPath into the step output, e.g. $.alerts.length' },
            operator: { enum: ['equals', 'not_equals', 'contains', 'greater_than', 'less_than'] },
            target_value: {},
          },
        },
      },
    },
    ['stop_conditions'],
  ),
};

const filterRules: Schema = {
  type: 'object',
  description: 'Conditions on the event body: {"all": [...]} or {"any": [...]} of {path, operator, value}',
};

function triggerSchema(properties: Schema = {}): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      uuid: { type: 'string', format: 'uuid' },
      type: { type: 'string' },
      filter_rules: filterRules,
      initial_data_description: { type: 'string', maxLength: 10000 },
      ...properties,
    },
  };
}

export const TRIGGER_SCHEMAS: Record<TriggerType, Schema> = {
  manual: triggerSchema(),
  webhook: triggerSchema(),
  schedule: triggerSchema(),
};

export const WORKFLOW_FIELDS_SCHEMA: Schema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 10000 },
    is_active: { type: 'boolean' },
    status: { enum: ['active', 'paused', 'archived'] },
    notify_url: { type: ['string', 'null'], pattern: '^https?://', maxLength: 2000 },
    notify_on_complete: { type: 'boolean' },
    notify_on_failure: { type: 'boolean' },
    steps: { type: 'array' },
    trigger: { type: ['object', 'null'] },
  },
};
