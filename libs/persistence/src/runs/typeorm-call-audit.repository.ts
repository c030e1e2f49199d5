import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { CallAuditRepository } from './call-audit.repository';
import { ModelCallEntity, ToolCallEntity } from './run.entities';
import { modelCallOf, toolCallOf } from './run.mappers';
import type { ModelCallRecord, ToolCallRecord } from './run.records';
import { runTransaction } from './run-sql';

const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal retried the call after its heartbeat timeout';

export class TypeormCallAuditRepository extends CallAuditRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async recordModelCall(call: Omit<ModelCallRecord, 'uuid'>): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      if (call.status === 'running') {
        await closeLostAttempts(manager, ModelCallEntity, 'turn = :turn', { instance: call.step_instance_uuid, turn: call.turn, attempt: call.attempt });
      }
      await manager
        .createQueryBuilder()
        .insert()
        .into(ModelCallEntity)
        .values({ ...call, uuid: randomUUID() } as never)
        .orUpdate(['status', 'error_message', 'response', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'duration_ms', 'finished_at'], ['step_instance_uuid', 'turn', 'attempt'])
        .execute();
    });
  }

  async recordToolCall(call: Omit<ToolCallRecord, 'uuid'>): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      if (call.status === 'running') {
        await closeLostAttempts(manager, ToolCallEntity, 'tool_call_id = :call', { instance: call.step_instance_uuid, call: call.tool_call_id, attempt: call.attempt });
      }
      await manager
        .createQueryBuilder()
        .insert()
        .into(ToolCallEntity)
        .values({ ...call, uuid: randomUUID() } as never)
        .orUpdate(['status', 'error_message', 'output', 'duration_ms', 'finished_at'], ['step_instance_uuid', 'tool_call_id', 'attempt'])
        .execute();
    });
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

/** Earlier attempts of a call that are still `running` when a new one starts: their worker died mid-call. */
async function closeLostAttempts(manager: EntityManager, entity: typeof ModelCallEntity | typeof ToolCallEntity, sameCall: string, params: Record<string, unknown>): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(entity)
    .set({ status: 'failed', error_message: LOST_ATTEMPT })
    .where(`step_instance_uuid = :instance AND ${sameCall} AND attempt < :attempt AND status = 'running'`, params)
    .execute();
}
