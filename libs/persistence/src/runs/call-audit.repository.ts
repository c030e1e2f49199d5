import type { ModelCallAttempt, ModelCallEnd, ToolCallAttempt, ToolCallEnd, TranscriptAnswer } from './call-attempts';
import type { RunSpend } from '@app/contracts';
import type { ModelCallRecord, ToolCallRecord } from './run.records';

export type { ModelCallAttempt, ModelCallEnd, ToolCallAttempt, ToolCallEnd, TranscriptAnswer } from './call-attempts';

/**
 * The audit of model and tool calls (`model_calls`, `tool_calls`): one row per (step, turn or tool call,
 * attempt), written `running` when the attempt starts and again when it ends, so a retry finds the work done.
 */
export abstract class CallAuditRepository {
  /**
   * Starting an attempt closes the earlier ones of the same call still `running`: their worker died. Returns
   * the attempt the row is under, for the write that ends it: a local activity run again after its worker
   * died counts from 1 again, and its row then takes the call's next attempt number.
   */
  abstract recordModelCall(call: ModelCallAttempt): Promise<number>;
  /** One row per (step, tool call, attempt), like model calls. */
  abstract recordToolCall(call: ToolCallAttempt): Promise<number>;
  /**
   * Ends a model call's attempt (its row written `running` when it started) and appends its answer to the
   * transcript at `position`, in one statement: false, and nothing written, when either is not as expected.
   */
  abstract recordModelAnswer(end: ModelCallEnd, answer: TranscriptAnswer): Promise<boolean>;
  /**
   * recordModelAnswer, and in the same transaction (one trip, one commit) the first `running` row of the tool
   * call the answer asks for (attempt 1), written only where the answer went in and the call has no row yet:
   * `toolStarted` says whether it did.
   */
  abstract recordModelAnswerStartingTool(
    end: ModelCallEnd,
    answer: TranscriptAnswer,
    running: ToolCallAttempt,
  ): Promise<{ answered: boolean; toolStarted: boolean }>;
  /** The same for a tool call's attempt and its answer. */
  abstract recordToolAnswer(end: ToolCallEnd, answer: TranscriptAnswer): Promise<boolean>;
  /**
   * recordToolAnswer, and in the same transaction the first `running` row (attempt 1) of the model turn that
   * follows (its request the transcript with this answer), written only where the answer went in and the turn
   * has no row yet: `turnStarted` says whether it did.
   */
  abstract recordToolAnswerStartingTurn(
    end: ToolCallEnd,
    answer: TranscriptAnswer,
    running: ModelCallAttempt,
  ): Promise<{ answered: boolean; turnStarted: boolean }>;
  /** The completed attempt of a model turn or a tool call, if any: a retry finds the work already done. */
  abstract completedModelCall(instanceUuid: string, turn: number): Promise<ModelCallRecord | null>;
  abstract completedToolCall(instanceUuid: string, toolCallId: string): Promise<ToolCallRecord | null>;
  /**
   * How many attempts of a model turn, or of a tool call, before attempt `before` died in flight with their
   * worker (left running, or closed as lost): what decides a run's quarantine. Attempts that failed on their
   * own are not counted.
   */
  abstract diedModelAttempts(instanceUuid: string, turn: number, before: number): Promise<number>;
  abstract diedToolAttempts(instanceUuid: string, toolCallId: string, before: number): Promise<number>;
  /** The most attempts any one call of the run lost with their worker (0 when none did). */
  abstract mostDiedAttempts(runUuid: string): Promise<number>;
  /** A replay's record: the run's first completed model call whose request had this hash (null: none did). */
  abstract recordedModelCall(runUuid: string, requestHash: string): Promise<ModelCallRecord | null>;
  /** A replay's record: the run's completed calls of a tool, oldest first, at most `limit`. */
  abstract recordedToolCalls(runUuid: string, toolName: string, limit: number): Promise<ToolCallRecord[]>;
  /**
   * The latest call of `userId` asked with this request hash that a provider answered (not itself a cache
   * hit) and that ended at `since` or later: what the response cache answers from. Never another user's.
   */
  abstract cachedAnswer(userId: string, requestHash: string, since: Date): Promise<ModelCallRecord | null>;
  /** The tokens the run's completed model calls used (what its budget counts). */
  abstract tokensUsed(runUuid: string): Promise<number>;
  /** The tokens and dollars the run's completed model calls used (what a budget in dollars counts; unpriced calls cost nothing here). */
  abstract runSpend(runUuid: string): Promise<RunSpend>;
}
