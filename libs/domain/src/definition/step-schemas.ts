// JSON Schemas (draft-07, ajv's default) of every step and trigger type's fields: the validator applies
// them and GET /step-types and /trigger-types serve them so a UI can render forms. `default` documents the
// value the parser fills in; the schemas never use $ref, so they convert to OpenAPI one by one.
import {
  CONDITION_OPERATORS,
  ITEM_FAILURE_POLICIES,
  JOIN_MODES,
  LOOP_CONCURRENCY_CEILING,
  LOOP_DEFAULTS,
  LOOP_TYPES,
  MODEL_PROVIDERS,
  STEP_EXECUTIONS,
  TOOL_DRIFT_POLICIES,
  WORKFLOW_STATUSES,
  type StepType,
  type TriggerType,
} from '@app/contracts';
import { DEFAULT_MAX_CORRECTION_ATTEMPTS } from '../outputs/structured-answer';
import { TOOL_NAME_PATTERN } from '../tools/builtin-tools';
import { MCP_QUALIFIED_NAME_PATTERN } from '../mcp/mcp-tool-names';
import { MIN_DURATION_SECONDS } from './durations';

type Schema = Record<string, unknown>;

/** Text that is not only blanks. */
const text = (maxLength: number, extra: Schema = {}): Schema => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S', ...extra });

/** The longest retry interval (a day). */
export const MAX_RETRY_INTERVAL_SECONDS = 86_400;

const retryPolicy: Schema = {
  type: ['object', 'null'],
  title: 'Retry policy',
  description: 'How the step is retried when it fails; absent fields keep the engine defaults',
  additionalProperties: false,
  properties: {
    max_attempts: { type: 'integer', minimum: 1, maximum: 100, description: 'Attempts in all, the first included' },
    initial_interval_seconds: {
      type: 'number',
      minimum: MIN_DURATION_SECONDS,
      maximum: MAX_RETRY_INTERVAL_SECONDS,
      description: 'Wait before the first retry: from a millisecond to a day, in whole milliseconds',
    },
    backoff_coefficient: { type: 'number', minimum: 1, maximum: 100, description: 'Each wait is the previous one times this' },
    maximum_interval_seconds: {
      type: 'number',
      minimum: MIN_DURATION_SECONDS,
      maximum: MAX_RETRY_INTERVAL_SECONDS,
      description: 'Longest wait between attempts: from a millisecond to a day, in whole milliseconds; at least initial_interval_seconds',
    },
  },
};

const common = (type: StepType): Schema => ({
  uuid: { type: 'string', format: 'uuid', description: 'Given by the server when absent' },
  type: { const: type },
  name: text(200, { title: 'Name', description: 'Unique within the workflow (case-insensitive)' }),
  description: { type: 'string', maxLength: 10000, default: '', title: 'Description' },
  retry_policy: retryPolicy,
  join: {
    enum: [...JOIN_MODES, null],
    default: 'any',
    title: 'Join',
    description:
      'Graph steps with several incoming edges: all waits until no branch still running can reach the step, then runs it once; any runs it after each branch that reaches it',
  },
});

const modelFields: Schema = {
  provider: {
    enum: [...MODEL_PROVIDERS, null],
    title: 'Provider',
    description: "Who serves the model (absent: the operator's DEFAULT_PROVIDER); only providers the operator configured are accepted",
  },
  model: text(200, { title: 'Model', description: 'Model name at the provider, e.g. gpt-4o-mini or claude-sonnet-4-5' }),
  system_prompt: text(100_000, {
    title: 'System prompt',
    description:
      'May use <<trigger_output>>, <<trigger_output.field>>, <<step_output.{uuid}>>, <<step_output.{uuid}.field[0]>> and $previous_output',
  }),
  output_schema: {
    type: ['object', 'null'],
    title: 'Output schema',
    description: 'JSON Schema the answer must follow (structured output)',
  },
  max_correction_attempts: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: 10,
    default: DEFAULT_MAX_CORRECTION_ATTEMPTS,
    title: 'Max correction attempts',
    description: 'How often an answer that breaks output_schema is sent back with the validation errors before the step fails',
  },
  max_tokens: {
    type: ['integer', 'null'],
    minimum: 1,
    maximum: 1_000_000,
    title: 'Max tokens',
    description: "The most tokens a model answer may have (default DEFAULT_MAX_TOKENS; at most the operator's MAX_MAX_TOKENS)",
  },
  cache: {
    type: ['object', 'null'],
    title: 'Response cache',
    description:
      "Opt in: a model call identical to one of the same user's (model, messages, tools, schema, sampling) within ttl_seconds is answered from it, audited as a cache hit that cost nothing; never across users",
    additionalProperties: false,
    required: ['ttl_seconds'],
    properties: {
      ttl_seconds: { type: 'integer', minimum: 1, maximum: 7 * 86_400, description: 'How long an answer serves, at most a week' },
    },
  },
  loop: {
    type: ['object', 'null'],
    title: 'Loop',
    description:
      'for_each: {type, input_path, max_items, max_concurrency, on_item_failure} runs the step once per element of the array input_path names (<<item>>, <<item_index>> in the prompt); repeat_until: {type, predicate_path, predicate_value, max_iters} runs it again until the JSONPath on its latest output equals predicate_value',
    additionalProperties: false,
    required: ['type'],
    properties: {
      type: { enum: [...LOOP_TYPES] },
      input_path: text(2000, {
        description: 'for_each: one placeholder naming an array, e.g. <<trigger_output.items>> or <<step_output.{uuid}.field>>',
      }),
      max_items: {
        type: 'integer',
        minimum: 1,
        maximum: 10000,
        default: LOOP_DEFAULTS.max_items,
        description: 'for_each: items beyond this are not run',
      },
      max_concurrency: {
        type: 'integer',
        minimum: 1,
        maximum: LOOP_CONCURRENCY_CEILING,
        default: 1,
        description: "for_each: items run at once (results stay in item order); at most the operator's LOOP_MAX_CONCURRENCY",
      },
      on_item_failure: {
        enum: [...ITEM_FAILURE_POLICIES],
        default: 'fail_fast',
        description:
          'for_each: fail_fast (the first failed item fails the step, the items in flight are cancelled) or continue (the output is {items, failed, failed_count}: a failed item null in items and listed in failed, with its error for the first 100)',
      },
      predicate_path: text(2000, { description: 'repeat_until: JSONPath on the latest output, e.g. $.done' }),
      predicate_value: { description: 'repeat_until: any JSON value; the loop stops when the path equals it' },
      max_iters: {
        type: 'integer',
        minimum: 1,
        maximum: 10000,
        default: LOOP_DEFAULTS.max_iters,
        description: 'repeat_until: iterations before the loop stops anyway',
      },
    },
  },
};

function stepSchema(type: StepType, title: string, properties: Schema, required: string[]): Schema {
  return {
    type: 'object',
    title,
    additionalProperties: false,
    properties: { ...common(type), ...properties },
    required: ['name', ...required],
  };
}

export const STOP_CONDITION_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['step_definition_uuid', 'extraction_json_path', 'operator', 'target_value'],
  properties: {
    step_definition_uuid: { type: 'string', format: 'uuid', description: 'An earlier step whose output is inspected' },
    extraction_json_path: text(2000, { description: 'JSONPath into the step output, e.g. $.alerts.length' }),
    operator: { enum: [...CONDITION_OPERATORS] },
    target_value: { description: 'Any JSON value to compare with' },
  },
};

export const STEP_SCHEMAS: Record<StepType, Schema> = {
  custom_llm: stepSchema(
    'custom_llm',
    'LLM call',
    {
      ...modelFields,
      execution: {
        enum: [...STEP_EXECUTIONS, null],
        title: 'Execution',
        description:
          'local (absent): the call runs as a local activity on the worker running the workflow, no task-queue round trip, shown in the Web UI once done; queued: an ordinary activity, heartbeating and shown while in flight, for calls expected to take more than about 30 s',
      },
    },
    ['model', 'system_prompt'],
  ),
  custom_agent: stepSchema(
    'custom_agent',
    'Agent with tools',
    {
      ...modelFields,
      tools: {
        type: 'array',
        title: 'Tools',
        items: {
          type: 'string',
          pattern: `^(?:${TOOL_NAME_PATTERN.source.slice(1, -1)}|${MCP_QUALIFIED_NAME_PATTERN.source.slice(1, -1)}|workflow:[0-9a-fA-F-]{36})$`,
        },
        uniqueItems: true,
        default: [],
        description:
          "Names of registered or built-in tools, MCP servers' tools as '<server>.<tool>', and workflows of yours as 'workflow:<uuid>' (offered under the workflow's name, its input_schema as parameters; each call a child run whose final output is the answer)",
      },
      max_iterations: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 100,
        default: 10,
        title: 'Max iterations',
        description: 'Model turns before the step fails',
      },
      execution: {
        enum: [...STEP_EXECUTIONS, null],
        title: 'Execution',
        description:
          "local (absent): in a chain, the model turns and the calls of tools whose timeout is at most the operator's LOCAL_TOOL_CALL_MAX_TIMEOUT_MS (30 s by default) run as local activities, no task-queue round trip, shown in the Web UI once done; queued: every turn and tool call an ordinary activity, heartbeating and shown while in flight",
      },
    },
    ['model', 'system_prompt'],
  ),
  stop_checker: stepSchema(
    'stop_checker',
    'Stop checker',
    {
      stop_conditions: {
        type: 'array',
        title: 'Stop conditions',
        description: 'The run stops when any of them holds',
        minItems: 1,
        items: STOP_CONDITION_SCHEMA,
      },
    },
    ['stop_conditions'],
  ),
  tool_executor: stepSchema('tool_executor', 'Tool executor', {}, []),
  human_input: stepSchema(
    'human_input',
    'Human input',
    {
      prompt: text(100_000, { title: 'Prompt', description: 'What the person is asked; shown on the waiting step' }),
      input_schema: {
        type: ['object', 'null'],
        title: 'Input schema',
        description: 'JSON Schema the answer must follow; a bad answer is refused and the run keeps waiting',
      },
      timeout_seconds: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 31_536_000,
        title: 'Timeout (seconds)',
        description:
          'How long the run waits; then the step takes `default`, or fails without one. Absent: it waits until answered or cancelled',
      },
      default: { title: 'Default answer', description: 'Any JSON value: the answer taken when timeout_seconds pass' },
    },
    ['prompt'],
  ),
  sub_workflow: stepSchema(
    'sub_workflow',
    'Sub-workflow',
    {
      workflow_uuid: {
        type: 'string',
        format: 'uuid',
        title: 'Workflow',
        description: 'Another workflow of yours; it must not call this one back, and nesting stops at SUB_WORKFLOW_MAX_DEPTH',
      },
      input: {
        title: 'Input',
        description:
          "The child run's trigger data: any JSON whose strings may hold placeholders (<<trigger_output.field>>, <<step_output.{uuid}>>, $previous_output, <<item>> in a for_each); a string that is one placeholder becomes the value it names. Absent: this run's trigger data. Checked against the workflow's input_schema",
      },
      loop: {
        ...(modelFields.loop as Schema),
        description:
          'for_each only: one child run per element of the array input_path names (<<item>>, <<item_index>> in input), max_concurrency of them at once',
      },
    },
    ['workflow_uuid'],
  ),
};

/** One level of the filter-rule language; ruleIssues checks the nesting, which a $ref-free schema cannot. */
const filterRules: Schema = {
  type: 'object',
  title: 'Filter rules',
  default: {},
  description:
    'Conditions on the event: {} matches all; a rule is {"path": <JSONPath>, "operator": <op>, "value": <any>}; combine rules with {"all": [...]} or {"any": [...]}, nested up to five levels',
  properties: {
    all: { type: 'array', items: { type: 'object' } },
    any: { type: 'array', items: { type: 'object' } },
    path: { type: 'string' },
    operator: { enum: [...CONDITION_OPERATORS, 'exists', 'matches'] },
    value: {},
  },
};

function triggerSchema(type: TriggerType, title: string): Schema {
  return {
    type: 'object',
    title,
    additionalProperties: false,
    properties: {
      uuid: { type: 'string', format: 'uuid', description: 'Given by the server when absent' },
      type: { const: type },
      filter_rules: filterRules,
      initial_data_description: {
        type: 'string',
        maxLength: 10000,
        default: '',
        title: 'Initial data',
        description: 'What the trigger data looks like, for people and prompts',
      },
    },
  };
}

// Every trigger type has the same fields today: schedules and webhook secrets are resources of their own.
export const TRIGGER_SCHEMAS: Record<TriggerType, Schema> = {
  manual: triggerSchema('manual', 'Manual'),
  webhook: triggerSchema('webhook', 'Webhook'),
  schedule: triggerSchema('schedule', 'Schedule'),
};

/** A budget's limits (a run's start, a workflow's default): tokens, US dollars at the configured prices, or both. */
export const BUDGET_SCHEMA: Schema = {
  type: ['object', 'null'],
  minProperties: 1,
  additionalProperties: false,
  properties: {
    max_tokens: { type: 'integer', minimum: 1, maximum: 1e12 },
    max_cost: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1e9,
      description: 'US dollars at the configured prices (unpriced models count nothing)',
    },
  },
};

/** The workflow's own fields; the parsers pick the ones each route accepts. */
export const WORKFLOW_FIELDS_SCHEMA: Schema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', format: 'uuid' },
    name: text(200),
    description: { type: 'string', maxLength: 10000 },
    is_active: { type: 'boolean' },
    status: { enum: [...WORKFLOW_STATUSES] },
    notify_url: { type: ['string', 'null'], pattern: '^https?://', maxLength: 2000 },
    notify_on_complete: { type: 'boolean' },
    notify_on_failure: { type: 'boolean' },
    tool_drift: {
      enum: [...TOOL_DRIFT_POLICIES],
      default: 'warn',
      description:
        "When the agents' tools changed since the workflow was saved: fail refuses the run, warn starts it and records the drift",
    },
    output_history_size: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: "How many of a looping step's latest outputs <<step_output.{uuid}[-2]>> can reach (default 5)",
    },
    input_schema: {
      type: ['object', 'null'],
      description:
        "JSON Schema of the trigger data a sub_workflow step starts this workflow's runs with (checked when the calling workflow is saved and when the child run starts); absent: any",
    },
    budget: {
      ...BUDGET_SCHEMA,
      description: 'The budget each run starts with unless its start names one: the run waits (awaiting_input) for an approval at it',
    },
    steps: { type: 'array' },
    trigger: { type: ['object', 'null'] },
    graph: { type: ['object', 'null'] },
  },
};
