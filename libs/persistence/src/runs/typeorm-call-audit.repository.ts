import type { DataSource } from 'typeorm';
import { CallAuditRepository, type ToolCallEnd } from './call-audit.repository';
import { insertFirstAttempt, insertNextAttempt, MODEL_CALLS, TOOL_CALLS, writeAttempt, type CallKind, type ModelCallAttempt, type ToolCallAttempt } from './call-attempts';
import { ModelCallEntity, ToolCallEntity } from './run.entities';
import { modelCallOf, toolCallOf } from './run.mappers';
import type { ModelCallRecord, ToolCallRecord } from './run.records';
import { APPEND_MESSAGE, runStatement, runTransaction } from './run-sql';

export class TypeormCallAuditRepository extends CallAuditRepository {
  constructor(private readonly dataSource: DataSource) {
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
  private async recordAttempt<T extends ModelCallAttempt | ToolCallAttempt>(kind: CallKind<T>, call: T): Promise<number> {
    if (call.status !== 'running') return (await runStatement(this.dataSource, (manager) => writeAttempt(manager, kind, call)), call.attempt);
    if (call.attempt === 1 && (await runStatement(this.dataSource, (manager) => insertFirstAttempt(manager, kind, call)))) return 1;
    return runTransaction(this.dataSource, (manager) => insertNextAttempt(manager, kind, call));
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
