// The one validator of workflow definitions: create, patch and import all come through here, so the
// rules cannot drift apart. Every problem names its field (a path into the request body); a body with
// several problems gives one error with the first one's code and all of them in `details.errors`.
import {
  STEP_TYPES,
  TRIGGER_TYPES,
  type JsonObject,
  type StepDefinition,
  type StepLoop,
  type StepType,
  type TriggerDefinition,
  type TriggerType,
  type WorkflowDefinition,
} from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { isJsonObject, requireJsonObject } from '../json-object';
import { jsonPathProblem, ruleIssues } from '../conditions';
import { findMalformedPlaceholders } from '../placeholders';
import { fieldPath, throwIssues, type Issue } from './issues';
import { offeredToolName } from '../mcp/mcp-tool-names';
import { jsonSchemaErrors, schemaIssues, schemaProblemText, userSchemaProblem } from './json-schema';
import { SCHEMA_LIMITS, type SchemaLimits, type SchemaProblem } from './schema-bounds';
import { STEP_SCHEMAS, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA } from './step-schemas';
import { chainAsGraph } from '../graph/chain-graph';
import { definitionIssues, graphAsChain, parseGraph } from '../graph/parse-graph';
import type { ToolManifest } from '../tools/tool-manifest';
import { loopIssues, withLoopDefaults } from './loop';
import { retryPolicyIssues } from './retry-policy';
import { budgetLimits } from '@app/contracts';

export type NewUuid = () => string;

export const WORKFLOW_DOCUMENT_FORMAT = 'stepwise.workflow/v1';

/**
 * What export writes and import reads: the whole definition behind a format marker. `tool_manifest` tells
 * a reader which tools the workflow expects; import ignores it and computes the manifest from its registry.
 */
export interface WorkflowDocument {
  format: typeof WORKFLOW_DOCUMENT_FORMAT;
  workflow: WorkflowDefinition;
  tool_manifest?: ToolManifest | null;
}

/** A parsed workflow body: a definition whose uuid may still be absent (the caller assigns or matches it). */
export type WorkflowInput = Omit<WorkflowDefinition, 'uuid'> & { uuid?: string };

function issuesOf(error: DomainError): Issue[] {
  const listed = error.details.errors;
  if (Array.isArray(listed) && listed.length) return listed as Issue[];
  return [{ code: error.code, message: error.message, field: error.details.field ?? '' }];
}

/** Runs a parser, adding its problems to `issues` instead of throwing, so one answer can list them all. */
function collect<T>(issues: Issue[], parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    issues.push(...issuesOf(error));
    return undefined;
  }
}

function knownType<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[], code: ErrorCode): T {
  const type = body.type;
  if (typeof type === 'string' && (allowed as readonly string[]).includes(type)) return type as T;
  const at = fieldPath(field, 'type');
  const problem = type === undefined ? 'is required' : `${JSON.stringify(type)} is not one`;
  throw new DomainError(code, `${at} ${problem}: it must be one of ${allowed.join(', ')}`, { field: at, allowed });
}

const lower = (uuid: unknown, newUuid: NewUuid): string => (typeof uuid === 'string' ? uuid.toLowerCase() : newUuid());

/** What the schema cannot say: placeholders, output schemas, JSONPaths and retry intervals that fit together. */
function stepContentIssues(step: Record<string, unknown>, prefix: string, limits: SchemaLimits): Issue[] {
  const issues: Issue[] = [];
  const at = (field: string) => fieldPath(prefix, field);
  if (typeof step.system_prompt === 'string') {
    for (const token of new Set(findMalformedPlaceholders(step.system_prompt))) {
      issues.push({
        code: ErrorCode.InvalidPlaceholder,
        field: at('system_prompt'),
        message: `${at('system_prompt')} has a malformed placeholder ${token}: use <<trigger_output>>, <<trigger_output.path>>, <<step_output.{uuid}>> or <<step_output.{uuid}.path>>`,
      });
    }
  }
  const schemaProblems = new Map<string, SchemaProblem | null>();
  for (const name of ['output_schema', 'input_schema']) {
    if (step[name] === undefined || step[name] === null) continue;
    const problem = userSchemaProblem(step[name], limits);
    schemaProblems.set(name, problem);
    if (problem) issues.push({ code: problem.code, field: at(name), message: `${at(name)} ${schemaProblemText(problem)}` });
  }
  if (step.type === 'human_input' && isJsonObject(step.input_schema) && step.default !== undefined && !schemaProblems.get('input_schema')) {
    const errors = jsonSchemaErrors(step.input_schema, step.default);
    if (errors.length)
      issues.push({
        code: ErrorCode.ValidationFailed,
        field: at('default'),
        message: `${at('default')} does not follow input_schema: ${errors.join('; ')}`,
      });
  }
  if (Array.isArray(step.stop_conditions)) {
    step.stop_conditions.forEach((condition, i) => {
      const path = isJsonObject(condition) ? condition.extraction_json_path : undefined;
      const problem = typeof path === 'string' && path !== '' ? jsonPathProblem(path) : null;
      if (problem) {
        const field = at(`stop_conditions[${i}].extraction_json_path`);
        issues.push({ code: ErrorCode.InvalidJsonPath, field, message: `${field} ${problem}: ${path}` });
      }
    });
  }
  if (Array.isArray(step.tools)) issues.push(...offeredNameIssues(step.tools, at('tools')));
  issues.push(...retryPolicyIssues(step.retry_policy, prefix));
  return issues;
}

/** Two of an agent's tools the model would know by one name (`a.b` is offered as `a__b`, a registered tool may be named that). */
function offeredNameIssues(tools: unknown[], field: string): Issue[] {
  const seen = new Map<string, string>();
  return tools.flatMap((tool): Issue[] => {
    if (typeof tool !== 'string') return [];
    const offered = offeredToolName(tool);
    const other = seen.get(offered);
    seen.set(offered, tool);
    return other && other !== tool
      ? [
          {
            code: ErrorCode.ValidationFailed,
            field,
            message: `${field}: ${other} and ${tool} would both be offered to the model as ${offered}`,
          },
        ]
      : [];
  });
}

/**
 * One step body (POST /workflows/{uuid}/steps, a step of a workflow body or document, a merged patch).
 * `field` prefixes every problem's field (`steps[2]`; '' for a body that is the step). Gives the step a
 * uuid when it has none, lower-cases the uuids it names and fills in the defaults. `limits`: what its JSON
 * Schemas may cost (the operator's SCHEMA_* settings).
 */
export function parseStep(input: unknown, field: string, newUuid: NewUuid, limits: SchemaLimits = SCHEMA_LIMITS): StepDefinition {
  const body = requireJsonObject(input, { field });
  const type = knownType<StepType>(body, field, STEP_TYPES, ErrorCode.UnknownStepType);
  throwIssues([...schemaIssues(STEP_SCHEMAS[type], body, field), ...stepContentIssues(body, field, limits), ...loopIssues(body, field)]);
  const step: Record<string, unknown> = { description: '', ...body, uuid: lower(body.uuid, newUuid) };
  if (isJsonObject(body.loop)) step.loop = withLoopDefaults(body.loop as unknown as StepLoop);
  if (type === 'custom_agent' && step.tools === undefined) step.tools = [];
  if (type === 'stop_checker') {
    step.stop_conditions = (body.stop_conditions as Record<string, unknown>[]).map((condition) => ({
      ...condition,
      step_definition_uuid: (condition.step_definition_uuid as string).toLowerCase(),
    }));
  }
  return step as unknown as StepDefinition;
}

/** A trigger body: its type's fields and the filter-rule language; defaults `{}` and "". */
export function parseTrigger(input: unknown, field: string, newUuid: NewUuid): TriggerDefinition {
  const body = requireJsonObject(input, { field });
  const type = knownType<TriggerType>(body, field, TRIGGER_TYPES, ErrorCode.UnknownTriggerType);
  const issues = schemaIssues(TRIGGER_SCHEMAS[type], body, field);
  const rulesField = fieldPath(field, 'filter_rules');
  const rulesReported = issues.some((issue) => issue.field === rulesField || issue.field.startsWith(`${rulesField}.`));
  if (body.filter_rules !== undefined && !rulesReported) issues.push(...ruleIssues(body.filter_rules, rulesField));
  throwIssues(issues);
  return {
    uuid: lower(body.uuid, newUuid),
    type,
    filter_rules: (body.filter_rules as TriggerDefinition['filter_rules'] | undefined) ?? {},
    initial_data_description: (body.initial_data_description as string | undefined) ?? '',
  };
}

const WORKFLOW_INPUT_SCHEMA = { ...WORKFLOW_FIELDS_SCHEMA, additionalProperties: false, required: ['name'] };

/**
 * POST /workflows (and the `workflow` of an imported document, with `prefix` 'workflow'): the workflow's
 * fields with their defaults, each step, the trigger, then the rules across steps. Every problem found is
 * listed; the chain is checked only when every step parsed.
 */
export function parseWorkflowInput(input: unknown, newUuid: NewUuid, prefix = '', limits: SchemaLimits = SCHEMA_LIMITS): WorkflowInput {
  const body = requireJsonObject(input, { field: prefix });
  const issues = [...schemaIssues(WORKFLOW_INPUT_SCHEMA, body, prefix), ...inputSchemaIssues(body, prefix)];
  const stepsField = fieldPath(prefix, 'steps');
  const parsed = Array.isArray(body.steps)
    ? body.steps.map((step, i) => collect(issues, () => parseStep(step, `${stepsField}[${i}]`, newUuid, limits)))
    : [];
  const trigger = isJsonObject(body.trigger)
    ? (collect(issues, () => parseTrigger(body.trigger, fieldPath(prefix, 'trigger'), newUuid)) ?? null)
    : null;
  const parsedSteps = parsed.filter((step): step is StepDefinition => step !== undefined);
  const graphField = fieldPath(prefix, 'graph');
  const parsedGraph = collect(issues, () => parseGraph(body.graph, graphField, newUuid));
  if (parsedSteps.length === parsed.length && parsedGraph !== undefined)
    issues.push(...definitionIssues(parsedSteps, parsedGraph, stepsField, graphField));
  throwIssues(issues);
  // A graph that is exactly a chain (an exported chain) is stored as that chain.
  const chain = parsedGraph ? graphAsChain(parsedSteps, parsedGraph) : null;
  const [steps, graph] = chain ? [chain, null] : [parsedSteps, parsedGraph ?? null];
  return {
    ...(typeof body.uuid === 'string' ? { uuid: body.uuid.toLowerCase() } : {}),
    name: body.name as string,
    description: (body.description as string | undefined) ?? '',
    is_active: (body.is_active as boolean | undefined) ?? true,
    status: (body.status as WorkflowDefinition['status'] | undefined) ?? 'active',
    notify_url: (body.notify_url as string | null | undefined) ?? null,
    notify_on_complete: (body.notify_on_complete as boolean | undefined) ?? false,
    notify_on_failure: (body.notify_on_failure as boolean | undefined) ?? true,
    tool_drift: (body.tool_drift as WorkflowDefinition['tool_drift'] | undefined) ?? 'warn',
    ...(typeof body.output_history_size === 'number' ? { output_history_size: body.output_history_size } : {}),
    ...(isJsonObject(body.input_schema) ? { input_schema: body.input_schema as JsonObject } : {}),
    ...(isJsonObject(body.budget) ? { budget: budgetLimits(body.budget) } : {}),
    steps,
    trigger,
    graph,
  };
}

/** A workflow's input_schema is a user's JSON Schema like any other: bounded when saved. */
function inputSchemaIssues(body: Record<string, unknown>, prefix: string): Issue[] {
  const problem = isJsonObject(body.input_schema) ? userSchemaProblem(body.input_schema) : null;
  const field = fieldPath(prefix, 'input_schema');
  return problem ? [{ code: problem.code, field, message: `${field} ${schemaProblemText(problem)}` }] : [];
}

const PATCHABLE = [
  'name',
  'description',
  'is_active',
  'status',
  'notify_url',
  'notify_on_complete',
  'notify_on_failure',
  'tool_drift',
  'output_history_size',
  'input_schema',
  'budget',
] as const;
export type WorkflowPatch = Partial<Pick<WorkflowDefinition, (typeof PATCHABLE)[number]>>;

const WORKFLOW_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: Object.fromEntries(PATCHABLE.map((key) => [key, (WORKFLOW_FIELDS_SCHEMA.properties as Record<string, unknown>)[key]])),
};

/** PATCH /workflows/{uuid}: at least one of the workflow's own fields; steps and trigger have their routes. */
export function parseWorkflowPatch(input: unknown): WorkflowPatch {
  const body = requireJsonObject(input);
  if (Object.keys(body).length === 0) {
    throw new DomainError(ErrorCode.ValidationFailed, `body must hold at least one of ${PATCHABLE.join(', ')}`, { field: 'body' });
  }
  throwIssues([...schemaIssues(WORKFLOW_PATCH_SCHEMA, body, ''), ...inputSchemaIssues(body, '')]);
  return Object.fromEntries(PATCHABLE.filter((key) => key in body).map((key) => [key, body[key]])) as WorkflowPatch;
}

/**
 * POST /workflows/import: `{format: "stepwise.workflow/v1", workflow: {...}}`, the document export writes
 * (or that document as JSON text). UUIDs are optional everywhere; fields are named `workflow.steps[0].name`.
 */
export function parseWorkflowDocument(input: unknown, newUuid: NewUuid, limits: SchemaLimits = SCHEMA_LIMITS): WorkflowInput {
  let document = input;
  if (typeof input === 'string') {
    try {
      document = JSON.parse(input);
    } catch (error) {
      throw new DomainError(ErrorCode.ImportUnparseable, `body is not a JSON document: ${(error as Error).message}`, { field: 'body' });
    }
  }
  const body = requireJsonObject(document, { code: ErrorCode.ImportUnparseable });
  if (body.format !== WORKFLOW_DOCUMENT_FORMAT) {
    const problem = body.format === undefined ? 'is required' : `${JSON.stringify(body.format)} is not supported`;
    throw new DomainError(ErrorCode.ImportUnparseable, `format ${problem}: it must be "${WORKFLOW_DOCUMENT_FORMAT}"`, { field: 'format' });
  }
  const workflow = requireJsonObject(body.workflow, { field: 'workflow', code: ErrorCode.ImportUnparseable });
  const extra = Object.keys(body).filter((key) => !['format', 'workflow', 'tool_manifest'].includes(key));
  throwIssues(extra.map((key) => ({ code: ErrorCode.ValidationFailed, field: key, message: `${key} is not a known field` })));
  return parseWorkflowInput(workflow, newUuid, 'workflow', limits);
}

/** The document GET /workflows/{uuid}/export answers; parseWorkflowDocument reads its definition back unchanged. */
export function toWorkflowDocument(
  definition: WorkflowDefinition,
  edgeUuid: (sourceStepUuid: string) => string,
  toolManifest?: ToolManifest | null,
): WorkflowDocument {
  // A chain is written as its graph of ALWAYS edges; importing that graph gives the chain back.
  const workflow = { ...definition, graph: definition.graph ?? chainAsGraph(definition.steps, edgeUuid) };
  return { format: WORKFLOW_DOCUMENT_FORMAT, workflow, ...(toolManifest !== undefined ? { tool_manifest: toolManifest } : {}) };
}

/**
 * PUT /workflows/{uuid}/steps/order: `proposed` must list each of `current` exactly once. Gives the new
 * order (lower-cased); NOT_A_PERMUTATION names what is missing, extra or repeated in `details`.
 */
export function checkPermutation(current: readonly string[], proposed: unknown, field = 'step_uuids'): string[] {
  if (!Array.isArray(proposed) || !proposed.every((id) => typeof id === 'string')) {
    throw new DomainError(ErrorCode.NotAPermutation, `${field} must be an array of step uuids`, { field });
  }
  const known = current.map((id) => id.toLowerCase());
  const ids = proposed.map((id: string) => id.toLowerCase());
  const duplicates = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  const missing = known.filter((id) => !ids.includes(id));
  const extra = [...new Set(ids.filter((id) => !known.includes(id)))];
  if (duplicates.length || missing.length || extra.length) {
    const problems = [
      missing.length ? `missing ${missing.join(', ')}` : '',
      extra.length ? `not steps of this workflow: ${extra.join(', ')}` : '',
      duplicates.length ? `repeated ${duplicates.join(', ')}` : '',
    ].filter(Boolean);
    throw new DomainError(
      ErrorCode.NotAPermutation,
      `${field} must list each of the workflow's ${known.length} steps exactly once (${problems.join('; ')})`,
      {
        field,
        missing,
        extra,
        duplicates,
      },
    );
  }
  return ids;
}
