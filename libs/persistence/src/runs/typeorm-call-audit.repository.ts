import type { RunSpend } from '@app/contracts';
import type { DataSource } from 'typeorm';
import { affectedRows, type OneTripPool, type Statement, type StatementResult } from '../one-trip-pool';
import { isDuplicateKey } from '../rolled-back';
import { CallAuditRepository } from './call-audit.repository';
import {
  diedAttempts,
  endWithAnswer,
  firstAttemptAfterAnswer,
  insertFirstAttempt,
  insertNextAttempt,
  MODEL_CALLS,
  mostDiedAttempts,
  TOOL_CALLS,
  writeAttempt,
  type CallKind,
  type ModelCallAttempt,
  type ModelCallEnd,
  type ToolCallAttempt,
  type ToolCallEnd,
  type TranscriptAnswer,
} from './call-attempts';
import { ModelCallEntity, RunEntity, ToolCallEntity } from './run.entities';
import { modelCallOf, toolCallOf } from './run.mappers';
import type { ModelCallRecord, ToolCallRecord } from './run.records';
import { runStatement, runTransaction } from './run-sql';

export class TypeormCallAuditRepository extends CallAuditRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly oneTrip: OneTripPool,
  ) {
    super();
  }

  recordModelCall(call: ModelCallAttempt): Promise<number> {
    return this.recordAttempt(MODEL_CALLS, call);
  }

  recordToolCall(call: ToolCallAttempt): Promise<number> {
    return this.recordAttempt(TOOL_CALLS, call);
  }

  /**
   * One attempt's row, written when it starts (closing the call's attempts a dead worker left running) and
   * again when it ends. A first attempt is one INSERT, no transaction; finding the row taken, it was run
   * before by a worker that died, and it takes the next attempt number instead.
   */
  private async recordAttempt<End extends ModelCallEnd | ToolCallEnd>(kind: CallKind<End>, call: End): Promise<number> {
    if (call.status !== 'running')
      return (await runStatement(this.dataSource, (manager) => writeAttempt(manager, kind, call)), call.attempt);
    if (call.attempt === 1 && (await runStatement(this.dataSource, (manager) => insertFirstAttempt(manager, kind, call)))) return 1;
    return runTransaction(this.dataSource, (manager) => insertNextAttempt(manager, kind, call));
  }

  recordModelAnswer(end: ModelCallEnd, answer: TranscriptAnswer): Promise<boolean> {
    return this.endWithAnswer(endWithAnswer(this.dataSource.manager, MODEL_CALLS, end, answer));
  }

  async recordModelAnswerStartingTool(
    end: ModelCallEnd,
    answer: TranscriptAnswer,
    running: ToolCallAttempt,
  ): Promise<{ answered: boolean; toolStarted: boolean }> {
    const { answered, started } = await this.answerStarting(MODEL_CALLS, end, answer, TOOL_CALLS, running);
    return { answered, toolStarted: started };
  }

  async recordToolAnswerStartingTurn(
    end: ToolCallEnd,
    answer: TranscriptAnswer,
    running: ModelCallAttempt,
  ): Promise<{ answered: boolean; turnStarted: boolean }> {
    const { answered, started } = await this.answerStarting(TOOL_CALLS, end, answer, MODEL_CALLS, running);
    return { answered, turnStarted: started };
  }

  /** A call's end with its answer, and the next call's first `running` row, in one trip. */
  private async answerStarting<End extends ModelCallEnd | ToolCallEnd, Next extends ModelCallEnd | ToolCallEnd>(
    kind: CallKind<End>,
    end: End,
    answer: TranscriptAnswer,
    nextKind: CallKind<Next>,
    running: Next,
  ): Promise<{ answered: boolean; started: boolean }> {
    const manager = this.dataSource.manager;
    const results = await this.oneTripUnlessTaken([
      ...endWithAnswer(manager, kind, end, answer),
      firstAttemptAfterAnswer(manager, nextKind, running),
    ]);
    return { answered: affectedRows(results?.at(-2)) === 1, started: affectedRows(results?.at(-1)) === 1 };
  }

  recordToolAnswer(end: ToolCallEnd, answer: TranscriptAnswer): Promise<boolean> {
    return this.endWithAnswer(endWithAnswer(this.dataSource.manager, TOOL_CALLS, end, answer));
  }

  /** One trip; false where the answer or the end did not go in (a racing append's duplicate key included). */
  private async endWithAnswer(statements: Statement[]): Promise<boolean> {
    return affectedRows((await this.oneTripUnlessTaken(statements))?.at(-1)) === 1;
  }

  /** The statements' results in one trip; null, nothing written, where a racing append or attempt took a key first. */
  private async oneTripUnlessTaken(statements: Statement[]): Promise<StatementResult[] | null> {
    try {
      return await this.oneTrip.transaction(statements);
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  async completedModelCall(instanceUuid: string, turn: number): Promise<ModelCallRecord | null> {
    const row = await this.dataSource.manager.findOneBy(ModelCallEntity, { step_instance_uuid: instanceUuid, turn, status: 'completed' });
    return row && modelCallOf(row);
  }

  async completedToolCall(instanceUuid: string, toolCallId: string): Promise<ToolCallRecord | null> {
    const row = await this.dataSource.manager.findOneBy(ToolCallEntity, {
      step_instance_uuid: instanceUuid,
      tool_call_id: toolCallId,
      status: 'completed',
    });
    return row && toolCallOf(row);
  }

  diedModelAttempts(instanceUuid: string, turn: number, before: number): Promise<number> {
    return diedAttempts(this.dataSource.manager, MODEL_CALLS, instanceUuid, turn, before);
  }

  diedToolAttempts(instanceUuid: string, toolCallId: string, before: number): Promise<number> {
    return diedAttempts(this.dataSource.manager, TOOL_CALLS, instanceUuid, toolCallId, before);
  }

  mostDiedAttempts(runUuid: string): Promise<number> {
    return mostDiedAttempts(this.dataSource.manager, runUuid);
  }

  async recordedModelCall(runUuid: string, requestHash: string): Promise<ModelCallRecord | null> {
    const row = await this.dataSource.manager.findOne(ModelCallEntity, {
      where: { run_uuid: runUuid, request_hash: requestHash, status: 'completed' },
      order: { started_at: 'ASC' },
    });
    return row && modelCallOf(row);
  }

  async recordedToolCalls(runUuid: string, toolName: string, limit: number): Promise<ToolCallRecord[]> {
    const rows = await this.dataSource.manager.find(ToolCallEntity, {
      where: { run_uuid: runUuid, tool_name: toolName, status: 'completed' },
      order: { started_at: 'ASC' },
      take: limit,
    });
    return rows.map(toolCallOf);
  }

  async tokensUsed(runUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS n FROM model_calls WHERE run_uuid = ? AND status = 'completed'",
      [runUuid],
    )) as { n: number | string }[];
    return Number(row.n);
  }

  async cachedAnswer(userId: string, requestHash: string, since: Date): Promise<ModelCallRecord | null> {
    const row = await this.dataSource.manager
      .createQueryBuilder(ModelCallEntity, 'm')
      .innerJoin(RunEntity, 'r', 'r.uuid = m.run_uuid')
      .where(
        "m.request_hash = :requestHash AND m.finished_at >= :since AND m.status = 'completed' AND m.cached_from IS NULL AND m.replayed_from IS NULL",
        {
          requestHash,
          since,
        },
      )
      .andWhere('r.user_id = :userId', { userId })
      .orderBy('m.finished_at', 'DESC')
      .limit(1)
      .getOne();
    return row && modelCallOf(row);
  }

  async runSpend(runUuid: string): Promise<RunSpend> {
    const [row] = (await this.dataSource.query(
      "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS n, COALESCE(SUM(cost), 0) AS d FROM model_calls WHERE run_uuid = ? AND status = 'completed'",
      [runUuid],
    )) as { n: number | string; d: number | string }[];
    return { tokens: Number(row.n), cost: Number(row.d) };
  }
}
