// Plain shapes of run records, as the rest of the code sees them (entities stay inside persistence).
import type {
  BudgetState,
  ConversationMessage,
  FinalStatus,
  GuardRailHit,
  LoopStopReason,
  RunBudget,
  LoopType,
  RunStatus,
  StepStatus,
  TokenUsage,
} from '@app/contracts';
import type { ToolDrift } from '@app/domain';

/** A run waiting on its user's spend limit: the SPEND_LIMIT_REACHED details of the call that found no room. */
export interface SpendPause {
  code: 'SPEND_LIMIT_REACHED';
  period: 'day' | 'month';
  limit: number;
  spent: number;
  /** When the period resets, and the call is tried again. */
  resets_at: string;
}

/**
 * An attempt of a model or tool call: `running` from its start, so an attempt whose worker died still shows,
 * and is closed as failed (lost) when the next attempt starts or the run ends.
 */
export type CallStatus = 'running' | 'completed' | 'failed';

/**
 * A new run's own trigger output: its value, or (`raw_json`) its JSON as serialized off the event loop (a
 * webhook delivery's), stored as it is.
 */
export type NewTriggerOutput = Omit<OutputRecord, 'created_at' | 'run_uuid' | 'user_id' | 'step_instance_uuid' | 'raw_data'> &
  ({ raw_data: unknown } | { raw_json: string });

export interface OutputRecord {
  uuid: string;
  run_uuid: string;
  user_id: string;
  step_instance_uuid: string | null;
  raw_data: unknown;
  summary: string;
  markdown_representation: string | null;
  size_bytes: number;
  created_at: Date;
}

export interface ModelCallRecord extends TokenUsage {
  uuid: string;
  run_uuid: string;
  step_instance_uuid: string;
  turn: number;
  attempt: number;
  /** Who served the call (`openai`, `anthropic`, `openrouter`, `dry-run`); null on calls recorded before providers were. */
  provider: string | null;
  model: string;
  /** The canonical hash of the request (libs/domain `requestHash`): equal hashes asked the same; null on calls recorded before. */
  request_hash: string | null;
  status: CallStatus;
  error_message: string | null;
  /** What the worker asked besides the messages (model, message_count, tools, response_format): the messages are the first `message_count` of the step's. */
  request: unknown;
  response: unknown;
  /** Of the prompt tokens, those served from the provider's cache. */
  cached_tokens: number;
  /** Dollars at the configured prices when it ended; null: its model has no price (or it ended before prices). */
  cost: number | null;
  /** A replay's call answered from the record: the recorded call (in the replayed run) whose answer it took. */
  replayed_from?: string | null;
  /** Answered by the response cache: the call whose answer it reused (no provider was asked, it cost nothing). */
  cached_from: string | null;
  duration_ms: number | null;
  started_at: Date;
  finished_at: Date | null;
}

export interface ToolCallRecord {
  uuid: string;
  run_uuid: string;
  step_instance_uuid: string;
  tool_call_id: string;
  attempt: number;
  tool_name: string;
  /** The MCP server that answered (its name when called); null for registered and built-in tools. */
  mcp_server?: string | null;
  input: unknown;
  output: unknown;
  /** A replay's call answered from the record: the recorded call (in the replayed run) whose answer it took. */
  replayed_from?: string | null;
  status: CallStatus;
  error_message: string | null;
  duration_ms: number | null;
  started_at: Date;
  finished_at: Date | null;
}

export interface StepInstanceRecord extends TokenUsage {
  /** Dollars its completed model calls cost; null when one of them has no price. */
  cost: number | null;
  uuid: string;
  run_uuid: string;
  step_definition_uuid: string;
  step_name: string;
  step_type: string;
  position: number;
  status: StepStatus;
  input_data: unknown;
  messages: unknown[] | null;
  output_id: string | null;
  /** Set on a step a resumed run did not run again: its output is the parent run's, referenced. */
  carried_from_run_uuid: string | null;
  error_message: string | null;
  attempts: number;
  duration_ms: number | null;
  started_at: Date | null;
  finished_at: Date | null;
  /** An execution's row (a loop's iteration, a graph step's execution): the row above it, and its 0-based index. Null on a step's own row. */
  parent_instance_uuid: string | null;
  execution_index: number | null;
  /** On a looping step's row once its loop ended. */
  loop_state: LoopState | null;
}

export interface LoopState {
  type: LoopType;
  iterations: number;
  stopped_by: LoopStopReason;
  /** for_each with `on_item_failure: "continue"`: how many items failed (listed in the output); any makes it a partial success. */
  failed_items?: number;
  outcome?: 'partial_success';
}

/** A step's row as GET /runs/{uuid} shows it: its output and calls. */
export type StepWithAudit = StepInstanceRecord & {
  output: OutputRecord | null;
  model_calls: ModelCallRecord[];
  tool_calls: ToolCallRecord[];
};

/**
 * A row with the execution rows beneath it (bounded, `execution_count` counts them all): a looping step's
 * iterations, a graph step's executions, and under a looping execution of a graph step its own iterations.
 */
export type StepWithExecutions = StepWithAudit & { executions: StepWithExecutions[]; execution_count: number };

export interface NotificationRecord {
  url: string;
  status: 'delivered' | 'failed';
  attempts: number;
  http_status: number | null;
  error: string | null;
  at: string;
}

export interface RunRecord extends TokenUsage {
  /** Dollars its completed model calls cost, summed when it ends; null when one of them has no price. */
  cost: number | null;
  uuid: string;
  user_id: string;
  workflow_uuid: string;
  workflow_name: string;
  /** The workflow's version the run ran (null: a definition never saved, or a run from before versions). */
  workflow_version: number | null;
  status: RunStatus;
  definition: unknown;
  trigger_output_id: string | null;
  temporal_workflow_id: string;
  schedule_id: string | null;
  /** The run this one resumes, and the step it started from; or the run whose sub_workflow step (parent_step_uuid) started it. */
  parent_run_uuid: string | null;
  parent_step_uuid: string | null;
  resumed_from_step_uuid: string | null;
  /** Answered by the built-in dry-run model, no tool called: costs nothing. */
  dry_run: boolean;
  /** The token budget it was started with (null: none), and the tokens used while it waits for an approval. */
  budget: BudgetState | null;
  /** While a call of the run waits on its user's spend limit: why, and when the limit resets (null: it does not). */
  spend_pause: SpendPause | null;
  error_message: string | null;
  notification: NotificationRecord | null;
  /** How the agents' tools differed from the workflow's saved manifest when the run started (tool_drift "warn"). */
  tool_drift: ToolDrift | null;
  /** A replay (POST /runs/{uuid}/replay): the run it replays, and whether calls not in its record went to the dry-run model. */
  replay_of: string | null;
  replay_offline: boolean;
  /** Conversational runs: the conversation's messages (not loaded by lists). */
  messages?: ConversationMessage[] | null;
  started_at: Date;
  finished_at: Date | null;
  created_at: Date;
}

export interface RunWithSteps extends RunRecord {
  steps: StepWithExecutions[];
  trigger_output: OutputRecord | null;
  /** The runs that resume this one. */
  resumed_by: Pick<RunRecord, 'uuid' | 'status' | 'resumed_from_step_uuid' | 'created_at'>[];
  /** The runs its sub_workflow steps started. */
  children: Pick<RunRecord, 'uuid' | 'workflow_uuid' | 'status' | 'parent_step_uuid' | 'created_at'>[];
}

/** A step of a resumed run that is not run again: the parent's instance keeps its output. */
export interface CarriedStep {
  output_id: string | null;
  from_run_uuid: string;
  finished_at: Date | null;
}

export interface NewRun {
  uuid: string;
  user_id: string;
  workflow_uuid: string;
  workflow_name: string;
  /** The saved version `definition` is (absent or null: an unsaved definition, the assistant's dry run). */
  workflow_version?: number | null;
  definition: unknown;
  temporal_workflow_id: string;
  schedule_id: string | null;
  /** Absent or null: the tools agree with the saved manifest. */
  tool_drift?: ToolDrift | null;
  /** The trigger data, stored with the run; or, for a resumed run, the id of its parent's. */
  trigger_output: NewTriggerOutput | { carried_output_id: string | null };
  steps: { uuid: string; step_definition_uuid: string; step_name: string; step_type: string; carried?: CarriedStep }[];
  resume?: { parent_run_uuid: string; from_step_uuid: string };
  /** A run a sub_workflow step started: that step's run and step. */
  called_by?: { run_uuid: string; step_uuid: string };
  dry_run?: boolean;
  budget?: RunBudget | null;
  replay?: { of: string; offline: boolean } | null;
}

/**
 * What ending a run writes, as its rules (libs/runs, run-ending.ts) decide: executed in one transaction, in this
 * order, the run's own row only while it is in flight (so an end is recorded once) and with it the place its
 * start took among its user's runs in flight given back.
 */
export interface RunEnding {
  run_uuid: string;
  status: FinalStatus;
  error_message: string | null;
  /** Written on the run's row (`guard_rail`), for the `guard_rail_hit` event its end writes. */
  guard_rail: GuardRailHit | null;
  /** Step rows failed first, each with its message, unless completed meanwhile. */
  failed_steps: { instance_uuid: string; error_message: string }[];
  /** Then every row of the run still in one of these statuses is marked skipped. */
  skipped_from: readonly StepStatus[];
  /** The message model and tool calls still running are failed with. */
  interrupted_calls: string;
  /** The workflow's counter that counts this end, if one does. */
  counter: RunCounter | null;
}

/** The workflow's columns counting its ended runs by outcome. */
export type RunCounter = 'successful_runs' | 'failed_runs';

export interface RunFilter {
  status?: RunStatus;
  workflow_uuid?: string;
  schedule_id?: string;
}
