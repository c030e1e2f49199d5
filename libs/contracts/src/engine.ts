// The run workflow's input and result, and the activities it calls: the contract between the API (which
// starts runs), libs/engine (the workflow) and apps/worker (the activities).
import type {
  CustomAgentStep,
  CustomLlmStep,
  FailedItem,
  HumanInputStep,
  LoopStopReason,
  StopCheckerStep,
  SubWorkflowStep,
  WorkflowDefinition,
} from './definition';
import type { ContinuedConversation } from './conversation';
import type { JsonObject, JsonValue } from './json';
import type { RunBudget, RunSpend } from './budget';
import type { FinalStatus, GuardRailHit, RunStatus, TokenUsage, ToolCallRequest } from './run';

export const RUN_WORKFLOW_TYPE = 'runWorkflow';
export const runWorkflowId = (runUuid: string): string => `run-${runUuid}`;

export interface StepInstanceRef {
  step_uuid: string;
  instance_uuid: string;
}

/** A run whose rows exist: what the API starts. */
export interface PreparedRun {
  run_uuid: string;
  user_id: string;
  /** The definition as it was when the run started: later edits never reach this run. */
  definition: WorkflowDefinition;
  instances: StepInstanceRef[];
  /** How long an activity may go without a heartbeat before Temporal retries it elsewhere. */
  heartbeat_timeout_seconds?: number;
  /** A dry run: no provider call, no tool side effect, no notification, people's answers made up. */
  dry_run?: true;
  /** The run pauses for an approval when its model calls have used this many tokens. */
  budget?: RunBudget;
  /** A replay of a recorded run: its activities answer from that run's record what it asked already. */
  replay?: ReplaySource;
  /** Conversational runs: turns an execution takes before it continues as new (default TURNS_PER_EXECUTION). */
  turns_per_execution?: number;
  /** Loop iterations an execution runs before it continues as new (default LOOP_ITERATIONS_PER_EXECUTION). */
  iterations_per_execution?: number;
  /** A resumed run starts here: the steps before it were carried over from the parent run. */
  resume?: ResumePoint;
  /** Set when this execution continues an earlier one of the same run (continue-as-new inside a loop). */
  continued?: ContinuedLoop;
  /** Set when a conversational run's execution continues an earlier one: the turns so far. */
  conversation?: ContinuedConversation;
  /** A run a sub_workflow step started: how deep it is (1 for a child of a top-level run). */
  depth?: number;
}

export interface ResumePoint {
  from_step_uuid: string;
  /** The carried step whose output is $previous_output for the first step run, null when none. */
  previous_step_uuid: string | null;
}

/**
 * Loop iterations one execution runs before it continues as new (sooner if Temporal suggests it), so a
 * loop of thousands keeps each history to a few thousand events.
 */
export const LOOP_ITERATIONS_PER_EXECUTION = 500;

/** Where a run that continued as new picks up: inside a looping step, at its next iteration. */
export interface ContinuedLoop {
  step_uuid: string;
  /** The step that ran just before the looping one ($previous_output), null when it is the first. */
  previous_step_uuid: string | null;
  /** 0-based index of the next iteration to run. */
  next_iteration: number;
  /** for_each: how many items the loop runs over (fixed when it started); null for repeat_until. */
  item_count: number | null;
  /** for_each: max_items cut the items short. */
  truncated: boolean;
  /**
   * for_each with `on_item_failure: "continue"`: how many items failed in earlier executions and the first of
   * them, not the list: a history stays bounded however many fail (their errors are on their rows in MySQL).
   */
  failures?: LoopFailures;
  /** The failed items themselves, as executions started before `failures` handed them on: read, never written. */
  failed_items?: FailedItem[];
  /** A loop inside a graph: the walk it is part of (a chain's walk has nothing else to carry). */
  walk?: ContinuedWalk;
}

/** A for_each's failed items so far, kept small: their number, and the one with the lowest index. */
export interface LoopFailures {
  count: number;
  first: FailedItem | null;
}

/** What a graph walk carries into the execution that continues its loop (the loop was its only branch). */
export interface ContinuedWalk {
  /** The loop's execution row, and its index among the step's executions. */
  instance_uuid: string;
  index: number;
  executions: Record<string, number>;
  failed: string[];
  failures: string[];
  /** Executions since the guard rails last started counting, and the time walked (waits for people left out). */
  steps_counted: number;
  walked_ms: number;
}

/** What a Temporal Schedule starts: the run workflow prepares its own rows first. */
export interface ScheduledRunRequest {
  scheduled: { schedule_id: string; workflow_uuid: string; user_id: string; trigger_output: unknown };
  heartbeat_timeout_seconds?: number;
}

export type RunWorkflowInput = PreparedRun | ScheduledRunRequest;

export interface RunWorkflowResult {
  status: RunStatus;
  error_message: string | null;
}

/** What travels through Temporal instead of a step's data: the data itself stays in MySQL. */
export interface OutputRef {
  output_id: string;
  /** The output's preview (outputPreview); the field keeps its recorded name. */
  summary: string;
  size_bytes: number;
  /** A digest of the data: the run workflow tells a changed output from a repeated one without reading it. */
  digest?: string;
}

export interface StepContext {
  run_uuid: string;
  user_id: string;
  instance_uuid: string;
  /** The step that ran just before this one ($previous_output), null for the first. */
  previous_step_uuid: string | null;
  /**
   * The output of `previous_step_uuid` this activation follows, when the walk knows it (since issue #32): a
   * chain's worker that has just stored it reads it from memory instead of MySQL.
   */
  previous_output_id?: string;
  /**
   * Set when this execution of the step has a row of its own under the step's row: a loop's iteration, or a
   * graph step's execution. `instance_uuid` is then that row, created by its first activity (for a looping
   * step in a graph, startLoop opens the execution's).
   */
  execution?: ExecutionRow;
  /** The workflow's output_history_size, when it sets one (else 5): how far `[-n]` history references reach. */
  output_history_size?: number;
  /** Graph runs: a router step must answer `next` with one of these (its CONDITIONAL edges' values). */
  route_choices?: string[];
  /** Conversational runs: the turn this execution belongs to; the step sees the transcript and gets the end tool. */
  conversation_turn?: number;
  /** A dry run: the built-in dry-run model answers and tools are not called (set only when true). */
  dry_run?: true;
  /** A replay: what the run it replays asked already is answered from its record (set only on replays). */
  replay?: ReplaySource;
}

/**
 * A replay (POST /runs/{uuid}/replay) of the recorded run `of`: a model call whose request hash one of its
 * completed calls had takes that call's answer, a tool call with the arguments of one of its completed calls
 * of that tool takes that call's output; a human_input step takes its answer. `offline`: model calls not in
 * the record go to the dry-run model, tool calls not in it get a dry run's answer; nothing leaves the worker.
 */
export interface ReplaySource {
  of: string;
  offline?: true;
}

/** One execution of a step in a row of its own: a loop's iteration, or a graph step's execution. */
export interface ExecutionRow {
  /** The row above: the looping step's own (in a graph, the loop's execution row), or a graph step's own for an execution. */
  parent_instance_uuid: string;
  /** 0-based; in a loop for_each's `<<item_index>>` and the item's position in the resolved array, on a graph execution the execution's number. */
  index: number;
}

/** What a looping step's start fixed: for_each's item count (capped by max_items) and whether the cap cut it. */
export interface LoopStart {
  item_count: number | null;
  truncated: boolean;
}

/** A step's output and what the walk reads off it: in a repeat_until loop whether the predicate holds, in a graph the route. */
export interface StepResultRef extends OutputRef {
  predicate_met?: boolean;
  /** Graph runs: the route a router step chose. */
  route?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * An agent's transcript lives on its step instance in MySQL, not in the workflow: what travels through
 * Temporal is its length, the model's tool calls and short summaries, so the history stays small whatever
 * the tools answer. Each activity reads the first `conversation_length` messages (the transcript's length:
 * the field names are in recorded payloads, so they keep "conversation") and writes at a position,
 * so a retried activity rewrites its own message instead of adding a second one.
 */
export interface AgentStart {
  tools: ToolSpec[];
  conversation_length: number;
  /**
   * The tools (by the name the model calls them) whose calls are short enough to run as local activities
   * where the run allows it: the built-ins, and tools whose timeout (an HTTP tool's, an MCP server's) is at
   * most LOCAL_TOOL_CALL_MAX_TIMEOUT_MS. Absent (starts recorded before it): none.
   */
  local_tools?: string[];
  /** The workflow tools (`workflow:<uuid>` in the step's tools): the name the model calls each by → the workflow's uuid. */
  workflow_tools?: Record<string, string>;
  /**
   * Asked with `turns`, where the step has short tools: its first turns, run on in the start's activity as
   * agentTurn runs them from turn 1 with `last_turn` and `complete`; the last one's result.
   */
  first_turns?: AgentTurnResult;
  /** Asked with `turns.ends_run`: the first turns completed the step, the chain's last, and the run's end is recorded (completed). */
  run_ended?: true;
}

/** A workflow tool's call: the child run to start (and the audit row's attempt, ended with the child), or (a call answered before a crash, or refused) its answer. */
export type WorkflowToolStart = { child: PreparedRun; audit_attempt: number } | { answered: ToolCallResult };

export interface AgentTurnResult {
  /** The calls the model asked for; none means the turn's message is the final answer. */
  tool_calls: ToolCallRequest[];
  /** The transcript's length after the turn, with the answers of the calls it ran (`tool_calls_run`). */
  conversation_length: number;
  usage: TokenUsage;
  /**
   * How many of `tool_calls`, from the first, the turn ran itself (a turn asked with `short_tools`); the
   * workflow runs the rest. Absent: none.
   */
  tool_calls_run?: number;
  /** Asked with `last_turn`: the turn this result is of, the last the activity ran. */
  turn?: number;
  /** Asked with `complete`, where this turn's answer was the final one: the step's result. */
  completed?: StepResultRef;
}

/** One tool call's outcome as the history shows it; the answer itself is in the conversation. */
export interface ToolCallResult {
  status: 'completed' | 'failed';
  summary: string;
  size_bytes: number;
}

/** An agent execution's transcript, as long as the workflow knows it (the field names are in recorded payloads: they keep "conversation"). */
export interface TranscriptRef {
  instance_uuid: string;
  conversation_length: number;
}

/**
 * Graph runs: the tool calls an agent execution hands to a tool executor. The answers go into the caller's
 * transcript at `conversation_length` onwards, one per call in order.
 */
export interface ToolHandoff {
  caller_step_uuid: string;
  conversation: TranscriptRef;
  calls: ToolCallRequest[];
  /** The caller's workflow tools (AgentStart's): the calls of these the tool executor runs as child runs. */
  workflow_tools?: Record<string, string>;
}

export interface StopCheckResult {
  stopped: boolean;
  reason: string | null;
}

export type LoopingStep = CustomLlmStep | CustomAgentStep | SubWorkflowStep;

/**
 * A chain's LLM step that follows the one an activity runs, on its own row: the activity runs it on, after the
 * step before it, with that step's output as its $previous_output.
 */
export interface ChainStepAhead {
  step: CustomLlmStep;
  instance_uuid: string;
}

/** What a step that ran on met: its error as its own activity would have failed with. */
export interface ChainStepFailure {
  message: string;
  type: string;
  retryable: boolean;
}

/**
 * runLlmStep's output; `ran_on`, the outputs of the steps asked with `run_on` that ran on in the same activity,
 * in order. It stops at a cancel, once it has run for about 30 s, or at a step that failed: `failed`, that
 * step's error (the workflow fails the step or runs it again as its own activity).
 */
export interface ChainStepsRan extends StepResultRef {
  ran_on?: StepResultRef[];
  failed?: ChainStepFailure;
  /** Asked with `ends_run`: every step ran, the last the chain's, and the run's end is recorded (completed). */
  run_ended?: true;
}

/** The activities the run workflow calls; apps/worker implements them over its services. */
export interface RunActivities {
  /** Records a scheduled run (snapshot, rows) under the uuid the workflow chose. */
  prepareScheduledRun(input: ScheduledRunRequest['scheduled'] & { run_uuid: string; temporal_workflow_id: string }): Promise<PreparedRun>;
  /**
   * Inside a loop, also creates the iteration's row and answers whether repeat_until's predicate holds. `run_on`
   * (a chain, in runs begun since its LLM steps share an activity): see ChainStepsRan. `ends_run`: the last of
   * them ends the chain, so the activity records the run's end too once it ran them all (as finishRun would).
   */
  runLlmStep(input: StepContext & { step: CustomLlmStep; run_on?: ChainStepAhead[]; ends_run?: true }): Promise<ChainStepsRan>;
  /** `turns` (a chain agent, in runs begun since its start runs on into its turns): see AgentStart.first_turns. */
  startAgentStep(input: StepContext & { step: CustomAgentStep; turns?: { last_turn: number; ends_run?: true } }): Promise<AgentStart>;
  /**
   * One model turn. `short_tools` (a local turn, in runs begun since rounds were folded): the leading calls of
   * these tools are run in the same activity, right after the answer, as callTool would run them. With
   * `last_turn` too (runs begun since rounds share an activity): the next turns follow in the same activity
   * while each asks only for short calls, up to `last_turn`; the result is the last one's.
   */
  agentTurn(
    input: StepContext & {
      step: CustomAgentStep;
      tools: ToolSpec[];
      turn: number;
      conversation_length: number;
      short_tools?: string[];
      last_turn?: number;
      /** With `last_turn`: a final answer completes the step in the same activity (`completed`), as completeAgentStep would. */
      complete?: true;
    },
  ): Promise<AgentTurnResult>;
  /** Runs the call and puts its answer at `position` in the transcript (`conversation_uuid`: the caller's, for a tool executor). */
  callTool(
    input: StepContext & { step: CustomAgentStep; call: ToolCallRequest; position: number; conversation_uuid?: string },
  ): Promise<ToolCallResult>;
  completeAgentStep(input: StepContext & { step: CustomAgentStep; conversation_length: number }): Promise<StepResultRef>;
  runStopChecker(input: StepContext & { step: StopCheckerStep }): Promise<StopCheckResult>;
  /** Graph runs: an agent execution that hands its tool calls to a tool executor ends with them as its output. */
  handOffToolCalls(input: StepContext & { tool_calls: ToolCallRequest[] }): Promise<OutputRef>;
  /** Graph runs: opens a tool executor's execution, the calls it runs as its input. */
  startToolExecutor(input: StepContext & { handoff: ToolHandoff }): Promise<void>;
  /** Graph runs: the tool executor's output, each call with the answer it put in the caller's conversation. */
  completeToolExecutor(input: StepContext & { handoff: ToolHandoff }): Promise<OutputRef>;
  /** Graph runs: an agent execution that goes on with an earlier one's conversation (tool answers included). */
  continueAgentStep(input: StepContext & { step: CustomAgentStep; from: TranscriptRef }): Promise<AgentStart>;
  /** Marks a looping step running and, for for_each, resolves its items once to count them. */
  startLoop(input: StepContext & { step: LoopingStep }): Promise<LoopStart>;
  /**
   * The step's output from its iterations (for_each: all in order; repeat_until: the last), and how the loop
   * ended; a for_each going on past failures reads its failed items from their rows.
   */
  completeLoop(input: StepContext & { step: LoopingStep; iterations: number; stopped_by: LoopStopReason }): Promise<OutputRef>;
  /** human_input: the step and the run wait (awaiting_input); `reason` says why a guard rail handed the run over. */
  awaitHumanInput(input: StepContext & { step: HumanInputStep; reason?: string; guard_rail?: GuardRailHit }): Promise<void>;
  /** human_input: the answer (or the default on timeout) becomes the step's output. */
  answerHumanInput(input: StepContext & { step: HumanInputStep; input: JsonValue }): Promise<StepResultRef>;
  /** human_input: no answer within timeout_seconds and no default. */
  expireHumanInput(input: StepContext & { step: HumanInputStep; error_message: string }): Promise<void>;
  /**
   * sub_workflow: records the child run `child_run_uuid` (pinned definition, input resolved and checked
   * against its input_schema) and marks the step running; answers the child's prepared run to start.
   */
  startSubWorkflow(input: StepContext & { step: SubWorkflowStep; child_run_uuid: string; depth: number }): Promise<PreparedRun>;
  /** sub_workflow: the child run's final output becomes the step's (by reference); a child that did not complete fails the step. */
  completeSubWorkflow(input: StepContext & { step: SubWorkflowStep; child_run_uuid: string }): Promise<StepResultRef>;
  /**
   * An agent's call of a workflow tool: audits the call running and records its child run (uuid drawn from
   * the call, pinned definition, arguments checked against its input_schema), or answers the call at once.
   * Run by a graph's tool executor: `conversation_uuid` is the caller's transcript, and `parent_step_uuid`
   * (the executor) the child's parent step.
   */
  startWorkflowTool(
    input: StepContext & {
      step: CustomAgentStep;
      call: ToolCallRequest;
      position: number;
      workflow_uuid: string;
      depth: number;
      conversation_uuid?: string;
      parent_step_uuid?: string;
    },
  ): Promise<WorkflowToolStart>;
  /** The child run's end as the call's answer (its final output, or a reference when large; its failure) at `position`, audited. */
  completeWorkflowTool(
    input: StepContext & {
      step: CustomAgentStep;
      call: ToolCallRequest;
      position: number;
      child_run_uuid: string;
      audit_attempt: number;
      conversation_uuid?: string;
    },
  ): Promise<ToolCallResult>;
  /** Graph runs: the uuids of the edges whose data conditions hold on the output. */
  evaluateEdgeConditions(input: {
    user_id: string;
    output_id: string;
    edges: { uuid: string; conditions: JsonObject }[];
  }): Promise<string[]>;
  /** Graph runs: a step's own row once the run ends, from its executions (the latest output, or failed). */
  closeGraphStep(input: { run_uuid: string; user_id: string; instance_uuid: string; failed: boolean }): Promise<void>;
  /** Conversational runs: the run waits for its first message (awaiting_input). */
  openConversation(input: { run_uuid: string }): Promise<void>;
  /** Conversational runs: the user's message goes into the transcript and the run is running its turn. */
  receiveMessage(input: { run_uuid: string; turn: number; content: string }): Promise<void>;
  /** Conversational runs: the reply (the text of `output_id`) goes into the transcript; the run waits again unless `closing`. */
  answerTurn(input: {
    run_uuid: string;
    user_id: string;
    turn: number;
    output_id: string | null;
    closing: boolean;
  }): Promise<string | null>;
  failStep(input: { instance_uuid: string; error_message: string }): Promise<void>;
  /** `guard_rail`: the guard rail the run ends on, recorded on its row (the `guard_rail_hit` event reads it). */
  finishRun(input: { run_uuid: string; status: FinalStatus; error_message: string | null; guard_rail?: GuardRailHit }): Promise<void>;
  /** Budgeted runs: the tokens the run's model calls used so far. */
  tokensUsed(input: { run_uuid: string }): Promise<number>;
  /** Runs with a budget in dollars: the tokens and dollars the run's completed model calls used so far. */
  runSpend(input: { run_uuid: string }): Promise<RunSpend>;
  /** Budgeted runs: the run waits (awaiting_input) for an approval, the tokens (and dollars) used shown on it. */
  pauseForBudget(input: {
    run_uuid: string;
    used_tokens: number;
    max_tokens?: number;
    used_cost?: number;
    max_cost?: number;
  }): Promise<void>;
  /** Budgeted runs: approved with new limits, the run goes on (running). */
  resumeAfterBudget(input: { run_uuid: string; max_tokens?: number; max_cost?: number }): Promise<void>;
  /** POSTs the run's signed summary to the workflow's notify_url; throws (and is retried) until it is taken. */
  notifyRunEnd(input: { run_uuid: string; user_id: string; url: string }): Promise<void>;
}
