// The assistant: a conversation (a session) becomes a validated, dry-run, saved workflow. Each session
// is one long-lived Temporal workflow; a user message is an Update running one turn; every model call and
// tool call is an activity. Events go to MySQL (assistant_events), which the SSE endpoints tail.
import type { PreparedRun } from './engine';

export const ASSISTANT_WORKFLOW_TYPE = 'assistantSessionWorkflow';
export const assistantWorkflowId = (sessionUuid: string): string => `assistant-${sessionUuid}`;
export const ASSISTANT_MESSAGE_UPDATE = 'assistantMessage';
/** The Update's refusal types, mapped to 409s by the API. */
export const ASSISTANT_BUSY = 'ASSISTANT_BUSY';
export const ASSISTANT_CLOSED = 'ASSISTANT_CLOSED';
/** Failure types an activity of a turn raises, which the workflow and the ERROR event name. */
export const ASSISTANT_SOURCE_DELETED = 'SOURCE_DELETED';
export const ASSISTANT_WORKFLOW_CHANGED = 'WORKFLOW_CHANGED';
/** Sessions before this patch ended at their first save or failure; from it on a session stays open. */
export const ASSISTANT_CONVERSATION_PATCH = 'assistant-session-stays-open';

export const ASSISTANT_MODES = ['create', 'edit', 'copy'] as const;
export type AssistantMode = (typeof ASSISTANT_MODES)[number];

export const ASSISTANT_STAGES = ['clarification', 'workflow_generation', 'validation', 'dry_run', 'saving', 'completed', 'failed'] as const;
export type AssistantStage = (typeof ASSISTANT_STAGES)[number];

export const ASSISTANT_EVENT_TYPES = ['STATUS_CHANGE', 'MESSAGE', 'WORKFLOW', 'ERROR'] as const;
export type AssistantEventType = (typeof ASSISTANT_EVENT_TYPES)[number];

/**
 * The assistant's limits: tool rounds per generation, steps per workflow, exchanges the clarifier sees. The
 * settings (libs/config) default to these; a session takes the API's values in its input, and a session
 * started before an input carried them goes on with these.
 */
export const ASSISTANT_MAX_TOOL_ROUNDS = 5;
/** Tool calls one model answer may ask for: the rest are answered refused, unrun (each call is an activity in the history). */
export const ASSISTANT_MAX_TOOL_CALLS_PER_ROUND = 8;
export const ASSISTANT_MAX_STEPS = 50;
export const ASSISTANT_CONVERSATION_EXCHANGES = 10;
/** Generations after the first that a validation issue or a failed dry run may ask for. */
export const ASSISTANT_CORRECTION_ROUNDS = 3;
/** The longest message a person may send a session (default of ASSISTANT_MESSAGE_MAX_CHARS). */
export const ASSISTANT_MESSAGE_MAX_CHARS = 20_000;
/** A session takes no more messages after this long without one. */
export const ASSISTANT_IDLE_TIMEOUT_SECONDS = 24 * 3600;
/** Messages one session takes: its conversation (rewritten whole on every turn) stays a few MB at most. */
export const ASSISTANT_MAX_TURNS = 200;

export interface AssistantSessionInput {
  session_uuid: string;
  user_id: string;
  mode: AssistantMode;
  /** edit and copy: the workflow the session starts from. */
  source_workflow_uuid: string | null;
  /** How long a model call may go without a heartbeat before Temporal retries it on another worker. */
  heartbeat_timeout_seconds?: number;
  /** How long the session waits for a message before it closes (default ASSISTANT_IDLE_TIMEOUT_SECONDS). */
  idle_timeout_seconds?: number;
  /** The messages it takes before it closes (default ASSISTANT_MAX_TURNS). */
  max_turns?: number;
  /** Rounds of tool calls one generation may make (default ASSISTANT_MAX_TOOL_ROUNDS). */
  max_tool_rounds?: number;
  /** Generations after the first that one turn's validation issues and failed dry runs may ask for (default ASSISTANT_CORRECTION_ROUNDS). */
  correction_rounds?: number;
  /** Turns one execution takes before the session continues as new (CONVERSATION_TURNS_PER_EXECUTION). */
  turns_per_execution?: number;
  /** Set by continue-as-new: where the session's earlier executions left it. */
  continued?: AssistantSessionContinued;
}

/** What a session carries into its next execution (the rest of its state is in MySQL). */
export interface AssistantSessionContinued {
  /** Turns taken so far: the next one's call keys follow them. */
  turns: number;
  /** The workflow the session saves (and, once saved, edits). */
  target_uuid: string;
}

export interface AssistantMessageArgs {
  text: string;
}

/** What the message's Update answers once the workflow took it: the turn it starts. */
export interface AssistantTurnResult {
  turn: number;
}

/** Names one activity's work in a session: retried, it finds its answer by this key and does nothing twice. */
export interface AssistantCallRef {
  session_uuid: string;
  /** 1-based: the user message the work answers. */
  turn: number;
  call_key: string;
}

export interface AssistantToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ClarifyResult {
  ready: boolean;
}

/** One generation model call: tool calls to run, or a candidate definition stored on the session. */
export interface GenerateResult {
  tool_calls: AssistantToolCall[];
}

export interface CheckResult {
  /** No issue: the candidate may be dry-run. */
  ok: boolean;
}

export interface DryRunOutcome {
  run_uuid: string;
  status: string;
  error_message: string | null;
}

export interface AssistantActivities {
  /** Records the user's message of a turn; SOURCE_DELETED when the workflow the session edits or copies is gone. */
  recordUserMessage(ref: AssistantCallRef & { text: string }): Promise<void>;
  /** Stage 1: the model says what it understood and asks one question, or says it is ready. */
  clarify(ref: AssistantCallRef): Promise<ClarifyResult>;
  /** Stage 2: one model call of the generation conversation (`with_tools`: it may still call tools). */
  generate(ref: AssistantCallRef & { with_tools: boolean }): Promise<GenerateResult>;
  /** One of stepwise's tools, its answer added to the generation conversation. */
  callAssistantTool(ref: AssistantCallRef & { call: AssistantToolCall }): Promise<void>;
  /** Stage 3: the validator on the candidate; its issues go back into the generation conversation. */
  checkCandidate(ref: AssistantCallRef & { target_uuid: string }): Promise<CheckResult>;
  /** Stage 4: records a dry run of the unsaved candidate and answers the run workflow's input. */
  prepareDryRun(ref: AssistantCallRef & { target_uuid: string; run_uuid: string }): Promise<PreparedRun>;
  /** Stage 4's end: a failed dry run goes back into the generation conversation. */
  recordDryRun(ref: AssistantCallRef & { outcome: DryRunOutcome }): Promise<CheckResult>;
  /**
   * Stage 5: create (create, copy) or replace (edit, and any save after the first) the workflow through the
   * REST service; WORKFLOW_CHANGED when it was edited elsewhere since the generation read it, SOURCE_DELETED
   * when the workflow it replaces is gone. `keeps_open`: the session takes the next message (absent: it ends).
   */
  saveCandidate(ref: AssistantCallRef & { target_uuid: string; keeps_open?: boolean }): Promise<void>;
  /**
   * The turn failed: stage failed, final_error_message, an ERROR event. `is_recoverable`: the session stays
   * open and the next message goes on from the intent and the last candidate with its problems (absent: it ends).
   */
  failTurn(ref: AssistantCallRef & { error_code: string; message: string; is_recoverable?: boolean }): Promise<void>;
  /** The session ends between turns (no message for its idle time, or its last message taken): closed, with an ERROR event. */
  closeSession(ref: AssistantCallRef & { error_code: string; message: string }): Promise<void>;
}
