// The one validator of workflow definitions: create, patch and import all come through here, so the
// rules cannot drift apart. Every problem names its field; the first one's code becomes the error's.
import {
  STEP_TYPES,
  TRIGGER_TYPES,
  type StepDefinition,
  type StepType,
  type TriggerDefinition,
  type TriggerType,
  type WorkflowDefinition,
} from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { isValidJsonPath, validateRules } from '../conditions';
import { findMalformedPlaceholders } from '../placeholders';
import { fieldPath, throwIssues, type Issue } from './issues';
import { jsonSchemaProblem, schemaIssues } from './json-schema';
import { STEP_SCHEMAS, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA } from './schemas';
import { validateStepChain } from './chain';

export type NewUuid = () => string;

export const WORKFLOW_DOCUMENT_FORMAT = 'stepwise.workflow/v1';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function requireObject(input: unknown, field: string, code = ErrorCode.ValidationFailed): Record<string, unknown> {
  if (!isObject(input)) throw new DomainError(code, `${field || 'body'} must be a JSON object`, { field: field || 'body' });
  return input;
}

function stepContentIssues(step: Record<string, unknown>, prefix: string): Issue[] {
  const issues: Issue[] = [];
  if (typeof step.system_prompt === 'string') {
    for (const token of findMalformedPlaceholders(step.system_prompt)) {
      const field = fieldPath(prefix, 'system_prompt');
      issues.push({ code: ErrorCode.InvalidPlaceholder, field, message: `${field} has a malformed placeholder ${token}` });
    }
  }
  if (step.output_schema !== undefined && step.output_schema !== null) {
    const problem = jsonSchemaProblem(step.output_schema);
    const field = fieldPath(prefix, 'output_schema');
    if (problem) issues.push({ code: ErrorCode.InvalidOutputSchema, field, message: `${field} is not a valid JSON Schema: ${problem}` });
  }
  if (Array.isArray(step.stop_conditions)) {
    step.stop_conditions.forEach((condition, i) => {
      const path = isObject(condition) ? condition.extraction_json_path : undefined;
      if (typeof path === 'string' && !isValidJsonPath(path)) {
        const field = fieldPath(prefix, `stop_conditions[${i}].extraction_json_path`);
        issues.push({ code: ErrorCode.InvalidJsonPath, field, message: `${field} is not a valid JSONPath: ${path}` });
      }
    });
  }
  return issues;
}

function knownType<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[], code: ErrorCode): T {
  const type = body.type;
  if (typeof type === 'string' && (allowed as readonly string[]).includes(type)) return type as T;
  const at = fieldPath(field, 'type');
  throw new DomainError(code, `${at} must be one of ${allowed.join(', ')}`, { field: at, allowed });
}

export function parseStep(input: unknown, field: string, newUuid: NewUuid): StepDefinition {
  const body = requireObject(input, field);
  const type = knownType<StepType>(body, field, STEP_TYPES, ErrorCode.UnknownStepType);
  throwIssues([...schemaIssues(STEP_SCHEMAS[type], body, field), ...stepContentIssues(body, field)]);
  const step: Record<string, unknown> = { description: '', ...body, uuid: typeof body.uuid === 'string' ? body.uuid.toLowerCase() : newUuid() };
  if (type === 'custom_agent' && step.tools === undefined) step.tools = [];
  return step as unknown as StepDefinition;
}

export function parseTrigger(input: unknown, field: string, newUuid: NewUuid): TriggerDefinition {
  const body = requireObject(input, field);
  const type = knownType<TriggerType>(body, field, TRIGGER_TYPES, ErrorCode.UnknownTriggerType);
  throwIssues(schemaIssues(TRIGGER_SCHEMAS[type], body, field));
  if (body.filter_rules !== undefined) validateRules(body.filter_rules, fieldPath(field, 'filter_rules'));
  return {
    uuid: typeof body.uuid === 'string' ? body.uuid.toLowerCase() : newUuid(),
    type,
    filter_rules: (body.filter_rules as TriggerDefinition['filter_rules']) ?? {},
    initial_data_description: (body.initial_data_description as string) ?? '',
  };
}

export type WorkflowInput = Omit<WorkflowDefinition, 'uuid'> & { uuid?: string };

/** POST /workflows and the body of an imported document. */
export function parseWorkflowInput(input: unknown, newUuid: NewUuid, prefix = ''): WorkflowInput {
  const body = requireObject(input, prefix);
  throwIssues(schemaIssues({ ...WORKFLOW_FIELDS_SCHEMA, required: ['name'] }, body, prefix));
  const stepsField = fieldPath(prefix, 'steps');
  const steps = ((body.steps as unknown[] | undefined) ?? []).map((step, i) => parseStep(step, `${stepsField}[${i}]`, newUuid));
  validateStepChain(steps, stepsField);
  const trigger = body.trigger ? parseTrigger(body.trigger, fieldPath(prefix, 'trigger'), newUuid) : null;
  return {
    ...(typeof body.uuid === 'string' ? { uuid: body.uuid.toLowerCase() } : {}),
    name: body.name as string,
    description: (body.description as string | undefined) ?? '',
    is_active: (body.is_active as boolean | undefined) ?? true,
    status: (body.status as WorkflowDefinition['status'] | undefined) ?? 'active',
    notify_url: (body.notify_url as string | null | undefined) ?? null,
    notify_on_complete: (body.notify_on_complete as boolean | undefined) ?? false,
    notify_on_failure: (body.notify_on_failure as boolean | undefined) ?? true,
    steps,
    trigger,
  };
}

const PATCHABLE = ['name', 'description', 'is_active', 'status', 'notify_url', 'notify_on_complete', 'notify_on_failure'] as const;
export type WorkflowPatch = Partial<Pick<WorkflowDefinition, (typeof PATCHABLE)[number]>>;

export function parseWorkflowPatch(input: unknown): WorkflowPatch {
  const body = requireObject(input, '');
  const fields = WORKFLOW_FIELDS_SCHEMA.properties as Record<string, unknown>;
  const schema = { type: 'object', additionalProperties: false, minProperties: 1, properties: Object.fromEntries(PATCHABLE.map((key) => [key, fields[key]])) };
  throwIssues(schemaIssues(schema, body, ''));
  return body as WorkflowPatch;
}

/** The export/import document: `{format, workflow}`; UUIDs optional (given ones upsert). */
export function parseWorkflowDocument(input: unknown, newUuid: NewUuid): WorkflowInput {
  const body = requireObject(input, '', ErrorCode.ImportUnparseable);
  if (body.format !== WORKFLOW_DOCUMENT_FORMAT) {
    throw new DomainError(ErrorCode.ImportUnparseable, `format must be "${WORKFLOW_DOCUMENT_FORMAT}"`, { field: 'format' });
  }
  if (!isObject(body.workflow)) {
    throw new DomainError(ErrorCode.ImportUnparseable, 'workflow must be a JSON object', { field: 'workflow' });
  }
  return parseWorkflowInput(body.workflow, newUuid, 'workflow');
}

export function toWorkflowDocument(definition: WorkflowDefinition): { format: string; workflow: WorkflowDefinition } {
  return { format: WORKFLOW_DOCUMENT_FORMAT, workflow: definition };
}

export function checkPermutation(current: readonly string[], proposed: unknown, field = 'step_uuids'): string[] {
  const fail = (message: string, details: Record<string, unknown> = {}): never => {
    throw new DomainError(ErrorCode.NotAPermutation, message, { field, ...details });
  };
  if (!Array.isArray(proposed) || !proposed.every((id) => typeof id === 'string')) fail(`${field} must be an array of step uuids`);
  const ids = (proposed as string[]).map((id) => id.toLowerCase());
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  const missing = current.filter((id) => !ids.includes(id));
  const unknown = ids.filter((id) => !current.includes(id));
  if (duplicates.length || missing.length || unknown.length) {
    fail(`${field} must list each of the workflow's ${current.length} steps exactly once`, { missing, unknown, duplicates });
  }
  return ids;
}
