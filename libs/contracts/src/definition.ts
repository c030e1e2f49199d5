// The workflow definition as users send it, as it is stored (JSON details) and as a run snapshots it.
// One snake_case shape from the wire to the workflow input, so no layer has to translate field names.
import type { GraphDefinition } from './graph';
import type { JsonObject, JsonValue } from './json';
import type { RunBudget } from './budget';

export const STEP_TYPES = ['custom_llm', 'custom_agent', 'stop_checker', 'tool_executor', 'human_input', 'sub_workflow'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const TRIGGER_TYPES = ['manual', 'webhook', 'schedule'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const CONDITION_OPERATORS = ['equals', 'not_equals', 'contains', 'greater_than', 'less_than'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const WORKFLOW_STATUSES = ['active', 'paused', 'archived'] as const;
/** paused: its schedules are paused; archived: also refuses new runs. */
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** Who serves a model step: `openai` and `openrouter` speak the chat-completions protocol, `anthropic` its Messages API. */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openrouter'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export const TOOL_DRIFT_POLICIES = ['fail', 'warn'] as const;
/** What a run does when the workflow's tools changed since it was saved: refuse to start, or start and record it. */
export type ToolDriftPolicy = (typeof TOOL_DRIFT_POLICIES)[number];

/** Per-step override of the Temporal activity retry policy. */
export interface RetryPolicy {
  max_attempts?: number;
  initial_interval_seconds?: number;
  backoff_coefficient?: number;
  maximum_interval_seconds?: number;
}

export interface StopCondition {
  step_definition_uuid: string;
  /** JSONPath into the referenced step's raw_data, e.g. `$.alerts.length`. */
  extraction_json_path: string;
  operator: ConditionOperator;
  target_value: JsonValue;
}

export const LOOP_TYPES = ['for_each', 'repeat_until'] as const;
export type LoopType = (typeof LOOP_TYPES)[number];

/** Runs the step once per element of the array a placeholder names (`<<item>>`, `<<item_index>>` in the prompt). */
export interface ForEachLoop {
  type: 'for_each';
  /** One placeholder naming an array: `<<trigger_output.items>>` or `<<step_output.{uuid}.field>>` of an earlier step. */
  input_path: string;
  max_items?: number;
  /** Iterations run at once (default 1: one after another); at most the operator's LOOP_MAX_CONCURRENCY. Results stay in item order. */
  max_concurrency?: number;
  /** What a failed item does (default fail_fast); see ITEM_FAILURE_POLICIES. */
  on_item_failure?: ItemFailurePolicy;
}

/**
 * fail_fast: the first failed item fails the step (the items in flight are cancelled); continue: the others
 * go on, and the step's output lists the failed items with their errors (`{items, failed, failed_count}`).
 */
export const ITEM_FAILURE_POLICIES = ['fail_fast', 'continue'] as const;
export type ItemFailurePolicy = (typeof ITEM_FAILURE_POLICIES)[number];

/** One item of a for_each that failed under `on_item_failure: "continue"`: its 0-based index and its error. */
export interface FailedItem {
  item_index: number;
  error: string;
}

/** Runs the step again until `predicate_path` (JSONPath on the latest output) equals `predicate_value`. */
export interface RepeatUntilLoop {
  type: 'repeat_until';
  predicate_path: string;
  predicate_value: JsonValue;
  max_iters?: number;
}

export type StepLoop = ForEachLoop | RepeatUntilLoop;

export const LOOP_DEFAULTS = { max_items: 100, max_iters: 10, output_history_size: 5 } as const;

/** The most a for_each's max_concurrency may ever be; the operator's LOOP_MAX_CONCURRENCY bounds it lower. */
export const LOOP_CONCURRENCY_CEILING = 100;

/** Why a loop ended: its predicate held, it hit a bound, or a for_each ran out of items. */
export type LoopStopReason = 'predicate' | 'max_iters' | 'max_items' | 'exhausted';

/**
 * Graph steps with several incoming edges: `any` (the default) runs the step in the wave after each branch
 * that reaches it; `all` waits until no branch still running can reach it, then runs it once.
 */
export const JOIN_MODES = ['any', 'all'] as const;
export type JoinMode = (typeof JOIN_MODES)[number];

interface StepBase {
  uuid: string;
  name: string;
  description: string;
  retry_policy?: RetryPolicy | null;
  /** Graph workflows: how a step with several incoming edges waits for its branches (JOIN_MODES). */
  join?: JoinMode | null;
}

export interface CustomLlmStep extends StepBase {
  type: 'custom_llm';
  /** Absent: the operator's DEFAULT_PROVIDER. */
  provider?: ModelProvider | null;
  model: string;
  system_prompt: string;
  output_schema?: JsonObject | null;
  /** Times an answer that breaks output_schema is sent back for correction before the step fails (default 2). */
  max_correction_attempts?: number | null;
  /** The most tokens an answer may have; the operator's default and maximum apply. */
  max_tokens?: number | null;
  loop?: StepLoop | null;
  /** Answers identical calls of the same user from an earlier one within the TTL. */
  cache?: ResponseCache | null;
  /**
   * Where the model call runs. `local` (absent): a local activity on the worker running the workflow, no
   * task-queue round trip. `queued`: an ordinary activity, heartbeating and shown in the Web UI while in
   * flight, for calls expected to take more than about 30 seconds.
   */
  execution?: StepExecution | null;
}

/**
 * Opt-in response cache of a model step: a call identical to one of the same user's within `ttl_seconds`
 * (the request's canonical hash) is answered from it, audited as a hit that cost nothing. Never across users.
 */
export interface ResponseCache {
  ttl_seconds: number;
}

export const STEP_EXECUTIONS = ['local', 'queued'] as const;
export type StepExecution = (typeof STEP_EXECUTIONS)[number];

export interface CustomAgentStep extends StepBase {
  type: 'custom_agent';
  /** Absent: the operator's DEFAULT_PROVIDER. */
  provider?: ModelProvider | null;
  model: string;
  system_prompt: string;
  /** Names of tools from the registry (built-ins and user-registered). */
  tools: string[];
  max_iterations?: number | null;
  output_schema?: JsonObject | null;
  /** Times a final answer that breaks output_schema is sent back for correction before the step fails (default 2). */
  max_correction_attempts?: number | null;
  /** The most tokens an answer may have; the operator's default and maximum apply. */
  max_tokens?: number | null;
  loop?: StepLoop | null;
  /** Answers identical calls of the same user from an earlier one within the TTL. */
  cache?: ResponseCache | null;
  /**
   * Where its rounds run. `local` (absent): in a chain, its model turns and its short tool calls (see
   * AgentStart.local_tools) are local activities, no task-queue round trip. `queued`: every turn and tool
   * call an ordinary activity, heartbeating and shown in the Web UI while in flight.
   */
  execution?: StepExecution | null;
}

export interface StopCheckerStep extends StepBase {
  type: 'stop_checker';
  stop_conditions: StopCondition[];
}

/** Graph workflows only: runs the tool calls of the agent that routed to it, then routes on. */
export interface ToolExecutorStep extends StepBase {
  type: 'tool_executor';
}

/**
 * The run waits for a person's answer (POST /runs/{uuid}/steps/{step_uuid}/input), checked against
 * input_schema; the answer is the step's output. After timeout_seconds the step takes `default`, or fails.
 */
export interface HumanInputStep extends StepBase {
  type: 'human_input';
  /** What the person is asked; shown on the waiting step. */
  prompt: string;
  input_schema?: JsonObject | null;
  timeout_seconds?: number | null;
  /** The answer taken when timeout_seconds pass without one; absent: the step fails then. */
  default?: JsonValue;
}

/**
 * Runs another workflow of the same user as a run of its own (a Temporal child workflow), pinned to that
 * workflow's definition when the parent run started; the child's final output is the step's output.
 */
export interface SubWorkflowStep extends StepBase {
  type: 'sub_workflow';
  workflow_uuid: string;
  /**
   * The child run's trigger data: any JSON whose strings may hold placeholders; a string that is one
   * placeholder becomes the value it names (absent: the parent's trigger data). Checked against the child
   * workflow's input_schema.
   */
  input?: JsonValue;
  /** for_each only: one child run per item (`<<item>>` in input), side by side with max_concurrency. */
  loop?: StepLoop | null;
}

export type StepDefinition = CustomLlmStep | CustomAgentStep | StopCheckerStep | ToolExecutorStep | HumanInputStep | SubWorkflowStep;

export interface TriggerDefinition {
  uuid: string;
  type: TriggerType;
  filter_rules: JsonObject;
  initial_data_description: string;
}

/** A whole workflow: what export writes, import reads and a run snapshots. */
export interface WorkflowDefinition {
  uuid: string;
  name: string;
  description: string;
  is_active: boolean;
  status: WorkflowStatus;
  /** When a run ends, POST a signed summary here (if the matching flag below is on). */
  notify_url: string | null;
  notify_on_complete: boolean;
  notify_on_failure: boolean;
  tool_drift: ToolDriftPolicy;
  steps: StepDefinition[];
  trigger: TriggerDefinition | null;
  /** Absent or null: the steps run as an ordered chain. */
  graph?: GraphDefinition | null;
  /** How many of a looping step's latest outputs `<<step_output.{uuid}[-2]>>` can reach (absent: 5). */
  output_history_size?: number;
  /** The JSON Schema a run's trigger data must follow when a sub_workflow step starts it (absent: any). */
  input_schema?: JsonObject | null;
  /** The budget (tokens, dollars) each run starts with unless its start names one (absent: none). */
  budget?: RunBudget | null;
  /**
   * A run's snapshot only: the definitions its sub_workflow steps (and theirs) run, by workflow uuid, as they
   * were when the run started, with their version (a child run gets the same map).
   */
  sub_workflows?: Record<string, WorkflowDefinition & { version?: number }>;
}
