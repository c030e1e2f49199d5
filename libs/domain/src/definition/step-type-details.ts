// Step type details, for agents that write workflows (the MCP tool get_step_type): every field of a
// step type with its type, enum values, default and an example, read from the schemas the validator applies.
import type { StepType } from '@app/contracts';
import { STEP_TYPE_CATALOG } from './catalog';
import { STEP_SCHEMAS } from './step-schemas';

type Schema = Record<string, unknown>;

export interface StepFieldInfo {
  name: string;
  /** JSON types joined with `|` (`integer|null`), `const` for the type tag, `any` for any JSON value. */
  type: string;
  required: boolean;
  title?: string;
  description?: string;
  enum_values?: unknown[];
  default?: unknown;
  example: unknown;
}

export interface StepTypeDetails {
  type: StepType;
  name: string;
  description: string;
  fields: StepFieldInfo[];
  /** A step of this type that the validator accepts (its uuids name steps of your own workflow). */
  example: Record<string, unknown>;
  schema: Schema;
}

const EARLIER_STEP = '6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f';

/** One example per field name; a field means the same in every step type that has it. */
const FIELD_EXAMPLES: Record<string, unknown> = {
  uuid: '0f8e2c4a-1b3d-4e5f-8a7b-9c0d1e2f3a4b',
  name: 'summarise',
  description: 'Summarises the ticket for the on-call engineer',
  retry_policy: { max_attempts: 3, initial_interval_seconds: 1, backoff_coefficient: 2, maximum_interval_seconds: 30 },
  join: 'any',
  provider: 'openai',
  model: 'gpt-4o-mini',
  system_prompt: 'Summarise in two sentences: <<trigger_output.text>>',
  output_schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
  max_correction_attempts: 2,
  max_tokens: 1024,
  cache: { ttl_seconds: 3600 },
  execution: 'local',
  loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_items: 100, max_concurrency: 4 },
  tools: ['http_request'],
  max_iterations: 10,
  stop_conditions: [{ step_definition_uuid: EARLIER_STEP, extraction_json_path: '$.label', operator: 'equals', target_value: 'spam' }],
  prompt: 'Approve the summary?',
  input_schema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
  timeout_seconds: 3600,
  default: { approved: false },
  workflow_uuid: '3c9d2e71-5a4b-4c8d-9e0f-2a1b3c4d5e6f',
  input: { city: '<<trigger_output.city>>', days: 3 },
};

function typeOf(schema: Schema): string {
  if ('const' in schema) return 'const';
  if (Array.isArray(schema.type)) return schema.type.join('|');
  if (typeof schema.type === 'string') return schema.type;
  return Array.isArray(schema.enum) ? 'enum' : 'any';
}

function fieldInfo(type: StepType, name: string, schema: Schema, required: boolean): StepFieldInfo {
  return {
    name,
    type: typeOf(schema),
    required,
    ...(typeof schema.title === 'string' ? { title: schema.title } : {}),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(Array.isArray(schema.enum) ? { enum_values: [...schema.enum] } : {}),
    ...('const' in schema ? { enum_values: [schema.const] } : {}),
    ...('default' in schema && name !== 'default' ? { default: schema.default } : {}),
    example: name === 'type' ? type : FIELD_EXAMPLES[name],
  };
}

export function stepFields(type: StepType): StepFieldInfo[] {
  const schema = STEP_SCHEMAS[type];
  const required = new Set(schema.required as string[]);
  return Object.entries(schema.properties as Record<string, Schema>).map(([name, field]) =>
    fieldInfo(type, name, field, required.has(name) || name === 'type'),
  );
}

/** The type, name and required fields: the smallest step of this type the validator accepts. */
export function stepExample(type: StepType): Record<string, unknown> {
  return Object.fromEntries(
    stepFields(type)
      .filter((field) => field.required)
      .map((field) => [field.name, field.example]),
  );
}

/** Null for a type that does not exist. */
export function stepTypeDetails(type: string): StepTypeDetails | null {
  const info = STEP_TYPE_CATALOG.find((candidate) => candidate.type === type);
  if (!info) return null;
  return {
    type: info.type,
    name: info.name,
    description: info.description,
    fields: stepFields(info.type),
    example: stepExample(info.type),
    schema: info.schema,
  };
}
