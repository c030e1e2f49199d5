import type { BudgetState, ConversationMessage, FinalStatus } from '@app/contracts';
import type { Page, PageRequest } from '../pages';
import type { LoopState, ModelCallRecord, NewRun, NotificationRecord, OutputRecord, RunFilter, RunRecord, RunWithSteps, StepInstanceRecord, ToolCallRecord } from './run.records';

/** GET /runs/{uuid} shows this many of a looping step's first and last iterations (and counts them all). */
export const ITERATIONS_SHOWN_AT_EACH_END = 50;

export type NewOutput = Omit<OutputRecord, 'created_at'>;

/** Reads of runs for the API (scoped by user) and the audit writes of the worker's activities. */
export abstract class RunRepository {
  /**
   * The run, its trigger output and its pending step instances, in one transaction, counted on its
   * workflow. False when a run with that uuid exists already (a repeated delivery).
   */
  abstract create(run: NewRun): Promise<boolean>;
  /** Removes a run that was recorded but never started (Temporal was unreachable), uncounted on its workflow. */
  abstract discardUnstarted(runUuid: string): Promise<void>;
  /** The run with its steps in order; a looping step's iterations nested under it, bounded (ITERATIONS_SHOWN_AT_EACH_END). */
  abstract find(userId: string, uuid: string): Promise<RunWithSteps | null>;
  /** The run's own row, without its steps and audit: for what only needs its status or definition. */
  abstract findRun(userId: string, uuid: string): Promise<RunRecord | null>;
  /** The tokens the run's completed model calls used. */
  abstract tokensUsed(runUuid: string): Promise<number>;
  /** A budgeted run waits for an approval (awaiting_input) or goes on (running), its budget state shown. */
  abstract setBudget(runUuid: string, budget: BudgetState, status: 'running' | 'awaiting_input'): Promise<void>;
  /**
   * Runs the API started (`run-<uuid>` executions) still recorded running after `olderThanSeconds`: candidates
   * for the reconciler, oldest first, the page after `after`.
   */
  abstract staleRunning(olderThanSeconds: number, limit: number, after?: StaleRun | null): Promise<StaleRun[]>;
  abstract list(userId: string, filter: RunFilter, page: PageRequest): Promise<Page<RunRecord>>;
  abstract findOutput(userId: string, outputId: string): Promise<OutputRecord | null>;

  /** The output of a step in a run (a looping step's own output, not an iteration's). */
  abstract outputOfStep(runUuid: string, stepUuid: string): Promise<OutputRecord | null>;
  /** A step's latest `limit` outputs, oldest first: its completed iterations' when it loops, else its one output. */
  abstract outputHistory(runUuid: string, stepUuid: string, limit: number): Promise<OutputRecord[]>;
  /** The outputs of a looping step's completed iterations in order: all of them, or the last `limit`. */
  abstract iterationOutputs(parentInstanceUuid: string, limit?: number): Promise<OutputRecord[]>;
  /** Creates an iteration's row under its step's row; a retried activity finds it there and goes on. */
  abstract openIteration(parentInstanceUuid: string, instanceUuid: string, iteration: number): Promise<void>;
  /** Records on a looping step's row how its loop ended. */
  abstract saveLoopState(instanceUuid: string, state: LoopState): Promise<void>;
  abstract triggerOutput(runUuid: string): Promise<OutputRecord | null>;
  abstract instance(instanceUuid: string): Promise<StepInstanceRecord | null>;

  /** Marks a step running (keeps the first started_at) and counts the attempt. */
  abstract startStep(instanceUuid: string, inputData: unknown): Promise<void>;
  abstract saveMessages(instanceUuid: string, messages: unknown[]): Promise<void>;
  /** Stores an output on its own, the step going on (a large tool answer the model reads by reference). */
  abstract storeOutput(output: NewOutput): Promise<void>;
  /** Stores the output and completes the step, summing its model calls' tokens, in one transaction. */
  abstract completeStep(instanceUuid: string, output: NewOutput | null, messages?: unknown[]): Promise<void>;
  /** Completes a step whose output is one stored already (its latest iteration's or execution's): referenced, not copied. */
  abstract completeStepWithOutput(instanceUuid: string, outputId: string): Promise<void>;
  /** A human_input step starts waiting: its row and the run's are marked awaiting_input, the question on the step. */
  abstract awaitInput(runUuid: string, instanceUuid: string, inputData: unknown): Promise<void>;
  /** The wait of a human_input step is over: the run is running again once no other step of it waits. */
  abstract inputReceived(runUuid: string): Promise<void>;
  /** Fails a step that has not completed. */
  abstract failStep(instanceUuid: string, errorMessage: string): Promise<void>;
  /**
   * Ends a running run: final status, tokens summed, steps not run marked skipped, calls still running
   * closed as interrupted, the workflow's counters. Idempotent: true only for the call that ended it.
   */
  abstract finishRun(runUuid: string, status: FinalStatus, errorMessage: string | null): Promise<boolean>;

  /** Conversational runs: the transcript so far, in order. */
  abstract conversation(runUuid: string): Promise<ConversationMessage[]>;
  /** Conversational runs: puts a transcript message at its position (a retried activity rewrites its own). */
  abstract putConversationMessage(runUuid: string, position: number, message: ConversationMessage): Promise<void>;
  /** Conversational runs: in flight between awaiting_input (waiting for a message) and running (a turn). */
  abstract setConversationStatus(runUuid: string, status: 'running' | 'awaiting_input'): Promise<void>;

  /** The latest attempt to deliver the run-end notification. */
  abstract recordNotification(runUuid: string, notification: NotificationRecord): Promise<void>;

  /**
   * One row per (step, turn, attempt), written `running` when the attempt starts and again when it ends.
   * Starting an attempt closes the earlier ones of the same call still `running`: their worker died.
   */
  abstract recordModelCall(call: Omit<ModelCallRecord, 'uuid'> & { run_uuid: string }): Promise<void>;
  /** One row per (step, tool call, attempt), like model calls. */
  abstract recordToolCall(call: Omit<ToolCallRecord, 'uuid'> & { run_uuid: string }): Promise<void>;
  /** The completed attempt of a model turn or a tool call, if any: a retry finds the work already done. */
  abstract completedModelCall(instanceUuid: string, turn: number): Promise<ModelCallRecord | null>;
  abstract completedToolCall(instanceUuid: string, toolCallId: string): Promise<ToolCallRecord | null>;
}

/** A run recorded `running` for a while, in the order the reconciler pages through them (created_at, then uuid). */
export interface StaleRun {
  uuid: string;
  user_id: string;
  created_at: Date;
}
