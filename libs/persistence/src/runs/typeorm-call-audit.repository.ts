import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { CallAuditRepository, type ToolCallEnd } from './call-audit.repository';
import { ModelCallEntity, ToolCallEntity } from './run.entities';
import { modelCallOf, toolCallOf } from './run.mappers';
import type { ModelCallRecord, ToolCallRecord } from './run.records';
import { isDuplicateKey } from '../rolled-back';
import { APPEND_MESSAGE, runStatement, runTransaction } from './run-sql';

const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal ran the call again once it noticed';

export class TypeormCallAuditRepository extends CallAuditRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  recordModelCall(call: Omit<ModelCallRecord, 'uuid'>): Promise<number> {
    return this.recordAttempt(ModelCallEntity, call, { sameCall: 'turn = :turn', params: { turn: call.turn }, key: ['step_instance_uuid', 'turn', 'attempt'] }, [
      'status', 'error_message', 'response', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'duration_ms', 'finished_at',
    ]);
  }

  recordToolCall(call: Omit<ToolCallRecord, 'uuid'>): Promise<number> {
    return this.recordAttempt(ToolCallEntity, call, { sameCall: 'tool_call_id = :call', params: { call: call.tool_call_id }, key: ['step_instance_uuid', 'tool_call_id', 'attempt'] }, [
      'status', 'error_message', 'output', 'duration_ms', 'finished_at',
    ]);
  }

  /**
   * One attempt's row, written when it starts (closing the call's attempts a dead worker left running) and
   * again when it ends. A first attempt is one INSERT; finding the row taken, it was run before by a worker
   * that died, and it takes the next attempt number instead.
   */
  private async recordAttempt(
    entity: typeof ModelCallEntity | typeof ToolCallEntity,
    call: { step_instance_uuid: string; attempt: number; status: string },
    identity: { sameCall: string; params: Record<string, unknown>; key: string[] },
    updated: string[],
  ): Promise<number> {
    const write = (manager: EntityManager, attempt: number) => manager.createQueryBuilder().insert().into(entity).values({ ...call, attempt, uuid: randomUUID() } as never).orUpdate(updated, identity.key).execute();
    if (call.status !== 'running') return (await runStatement(this.dataSource, (manager) => write(manager, call.attempt)), call.attempt);
    if (call.attempt === 1) {
      try {
        return (await runStatement(this.dataSource, (manager) => manager.insert(entity, { ...call, uuid: randomUUID() } as never)), 1);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
    const where = { instance: call.step_instance_uuid, ...identity.params };
    return await runTransaction(this.dataSource, async (manager) => {
      const attempt = Math.max(call.attempt, (await lastAttempt(manager, entity, identity.sameCall, where)) + 1);
      await closeLostAttempts(manager, entity, identity.sameCall, { ...where, attempt });
      await write(manager, attempt);
      return attempt;
    });
  }

  async recordToolAnswer(end: ToolCallEnd, answer: { instance_uuid: string; position: number; message: unknown }): Promise<boolean> {
    // One statement over both rows: the call is never recorded ended without its answer in place, nor the reverse.
    const result = (await runStatement(this.dataSource, (manager) =>
      manager.query(
        `UPDATE tool_calls t JOIN workflow_step_instances s ON s.uuid = ?
            SET t.status = ?, t.output = ?, t.error_message = ?, t.duration_ms = ?, t.finished_at = ?, ${APPEND_MESSAGE.set}
          WHERE t.step_instance_uuid = ? AND t.tool_call_id = ? AND t.attempt = ? AND t.status = 'running' AND ${APPEND_MESSAGE.where}`,
        [
          answer.instance_uuid,
          end.status,
          JSON.stringify(end.output ?? null),
          end.error_message,
          end.duration_ms,
          end.finished_at,
          JSON.stringify(answer.message),
          end.step_instance_uuid,
          end.tool_call_id,
          end.attempt,
          answer.position,
        ],
      ),
    )) as { affectedRows: number };
    return result.affectedRows > 0;
  }

  async completedModelCall(instanceUuid: string, turn: number): Promise<ModelCallRecord | null> {
    const row = await this.dataSource.manager.findOneBy(ModelCallEntity, { step_instance_uuid: instanceUuid, turn, status: 'completed' });
    return row && modelCallOf(row);
  }

  async completedToolCall(instanceUuid: string, toolCallId: string): Promise<ToolCallRecord | null> {
    const row = await this.dataSource.manager.findOneBy(ToolCallEntity, { step_instance_uuid: instanceUuid, tool_call_id: toolCallId, status: 'completed' });
    return row && toolCallOf(row);
  }

  async tokensUsed(runUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query("SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS n FROM model_calls WHERE run_uuid = ? AND status = 'completed'", [runUuid])) as { n: number | string }[];
    return Number(row.n);
  }
}

/** The highest attempt recorded for a call (0: none), its rows locked until the transaction ends. */
async function lastAttempt(manager: EntityManager, entity: typeof ModelCallEntity | typeof ToolCallEntity, sameCall: string, params: Record<string, unknown>): Promise<number> {
  const row = await manager.createQueryBuilder(entity, 'a').select('MAX(a.attempt)', 'last').where(`a.step_instance_uuid = :instance AND a.${sameCall}`, params).setLock('pessimistic_write').getRawOne<{ last: number | null }>();
  return Number(row?.last ?? 0);
}

/** Earlier attempts of a call that are still `running` when a new one starts: their worker died mid-call. */
async function closeLostAttempts(manager: EntityManager, entity: typeof ModelCallEntity | typeof ToolCallEntity, sameCall: string, params: Record<string, unknown>): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(entity)
    .set({ status: 'failed', error_message: LOST_ATTEMPT })
    .where(`step_instance_uuid = :instance AND ${sameCall} AND attempt < :attempt AND status = 'running'`, params)
    .execute();
}
