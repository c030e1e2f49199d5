// The door from a run's life to its execution: the API implements it over its Temporal client
// (apps/api/src/temporal/run-launcher.ts). What an execution's end means for the run is decided here
// (run-ending.ts), not behind the door.
import type {
  ApproveBudgetArgs,
  BudgetApproved,
  HumanInputAccepted,
  HumanInputArgs,
  PreparedRun,
  RunWorkflowResult,
  SendMessageArgs,
  TurnReply,
} from '@app/contracts';

/** A run's execution as Temporal sees it; a closed one says how it closed, and what it answered or why it failed. */
export type ExecutionState =
  | { state: 'running' }
  | { state: 'missing' }
  | { state: 'closed'; closed: 'completed'; result: RunWorkflowResult }
  | { state: 'closed'; closed: 'cancelled' | 'timed_out' }
  | { state: 'closed'; closed: 'terminated' | 'failed'; failure: string };

export type ClosedExecution = Extract<ExecutionState, { state: 'closed' }>;

/** A message's turn: answered within the wait, or still running (its update id to look it up by). */
export type TurnOutcome = { answered: true; reply: TurnReply } | { answered: false; turn_id: string };

export abstract class RunLauncher {
  /** Starts the run's execution, or joins the one that exists; TEMPORAL_UNAVAILABLE when Temporal cannot be reached. */
  abstract start(run: PreparedRun): Promise<void>;
  /** By the execution's workflow id (`run-<uuid>` for runs started here, the schedule's id for scheduled ones). */
  abstract cancel(workflowId: string): Promise<void>;
  abstract observe(workflowId: string): Promise<ExecutionState>;
  /** Delivers a person's answer to a waiting human_input step (a Temporal Update); STEP_NOT_AWAITING_INPUT when the workflow refuses it. */
  abstract answer(workflowId: string, args: HumanInputArgs): Promise<HumanInputAccepted>;
  /** Lets a run waiting on its token budget go on with a new limit (a Temporal Update); RUN_NOT_ACTIVE when the workflow refuses it. */
  abstract approveBudget(workflowId: string, args: ApproveBudgetArgs): Promise<BudgetApproved>;
  /** Asks a run paused on its user's spend limit to try its call again now (a Temporal Signal); a closed or missing execution is passed over. */
  abstract recheckSpend(workflowId: string): Promise<void>;
  /** Delivers a user message to a conversational run (a Temporal Update) and waits up to `waitMs` for the turn's reply. */
  abstract sendMessage(workflowId: string, args: SendMessageArgs, waitMs: number): Promise<TurnOutcome>;
}
