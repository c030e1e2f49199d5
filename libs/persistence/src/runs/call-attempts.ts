// Writing a call attempt's audit row (`model_calls`, `tool_calls`) through a given manager: on its own, or
// inside the transaction of the step's own write (an LLM step's start, its output and close), so that the
// row costs no commit of its own.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { isDuplicateKey } from '../rolled-back';
import { ModelCallEntity, ToolCallEntity } from './run.entities';
import type { ModelCallRecord, ToolCallRecord } from './run.records';

/** A model call's attempt as written: started (`running`) or ended. */
export type ModelCallAttempt = Omit<ModelCallRecord, 'uuid'>;
export type ToolCallAttempt = Omit<ToolCallRecord, 'uuid'>;

/** What every attempt's row has: the step it is under and its number. */
type AttemptRow = { step_instance_uuid: string; attempt: number };

const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal ran the call again once it noticed';

/** What tells a kind of call's rows apart: its table, the column naming one call of a step, and what an attempt's end sets. */
export interface CallKind<T extends AttemptRow> {
  entity: typeof ModelCallEntity | typeof ToolCallEntity;
  sameCall: (call: T) => { where: string; params: Record<string, unknown> };
  key: string[];
  ended: string[];
}

export const MODEL_CALLS: CallKind<ModelCallAttempt> = {
  entity: ModelCallEntity,
  sameCall: (call) => ({ where: 'turn = :turn', params: { turn: call.turn } }),
  key: ['step_instance_uuid', 'turn', 'attempt'],
  ended: ['status', 'error_message', 'response', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'duration_ms', 'finished_at'],
};

export const TOOL_CALLS: CallKind<ToolCallAttempt> = {
  entity: ToolCallEntity,
  sameCall: (call) => ({ where: 'tool_call_id = :call', params: { call: call.tool_call_id } }),
  key: ['step_instance_uuid', 'tool_call_id', 'attempt'],
  ended: ['status', 'error_message', 'output', 'duration_ms', 'finished_at'],
};

/** An attempt's row as it ends (or any row by its key): inserted, or updated where its `running` row is. */
export async function writeAttempt<T extends AttemptRow>(manager: EntityManager, kind: CallKind<T>, call: T): Promise<void> {
  await manager.createQueryBuilder().insert().into(kind.entity).values({ ...call, uuid: randomUUID() } as never).orUpdate(kind.ended, kind.key).execute();
}

/**
 * A first attempt's `running` row: one INSERT. False, and nothing written, when its key is taken: the call
 * was run before by a worker that died (a local activity run again counts from attempt 1 again).
 */
export async function insertFirstAttempt<T extends AttemptRow>(manager: EntityManager, kind: CallKind<T>, call: T): Promise<boolean> {
  try {
    await manager.insert(kind.entity, { ...call, uuid: randomUUID() } as never);
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * A `running` row under the call's next attempt number (at least its own), closing the attempts a dead worker
 * left running. Inside a transaction: the call's rows are locked until it ends. Returns the attempt written.
 */
export async function insertNextAttempt<T extends AttemptRow>(manager: EntityManager, kind: CallKind<T>, call: T): Promise<number> {
  const same = kind.sameCall(call);
  const params = { instance: call.step_instance_uuid, ...same.params };
  const last = await manager
    .createQueryBuilder(kind.entity, 'a')
    .select('MAX(a.attempt)', 'last')
    .where(`a.step_instance_uuid = :instance AND a.${same.where}`, params)
    .setLock('pessimistic_write')
    .getRawOne<{ last: number | null }>();
  const attempt = Math.max(call.attempt, Number(last?.last ?? 0) + 1);
  await manager
    .createQueryBuilder()
    .update(kind.entity)
    .set({ status: 'failed', error_message: LOST_ATTEMPT })
    .where(`step_instance_uuid = :instance AND ${same.where} AND attempt < :attempt AND status = 'running'`, { ...params, attempt })
    .execute();
  await writeAttempt(manager, kind, { ...call, attempt });
  return attempt;
}

/** Both of the above in one transaction (`manager` is its): the attempt the `running` row went under. */
export async function startAttempt<T extends AttemptRow>(manager: EntityManager, kind: CallKind<T>, call: T): Promise<number> {
  if (call.attempt === 1 && (await insertFirstAttempt(manager, kind, call))) return 1;
  return insertNextAttempt(manager, kind, call);
}
