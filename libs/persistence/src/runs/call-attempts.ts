// Writing a call attempt's audit row (`model_calls`, `tool_calls`) through a given manager: on its own, or
// inside the transaction of the step's own write (an LLM step's start, its output and close), so that the
// row costs no commit of its own.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { execute, insertRow, insertWhere } from '../entity-statements';
import { isDuplicateKey } from '../rolled-back';
import { ModelCallEntity, ToolCallEntity } from './run.entities';
import type { ModelCallRecord, ToolCallRecord } from './run.records';
import type { Statement } from '../one-trip-pool';
import { appendMessageStatements } from './run-sql';

/** A model call's attempt as written: started (`running`) or ended. */
export type ModelCallAttempt = Omit<ModelCallRecord, 'uuid'>;
export type ToolCallAttempt = Omit<ToolCallRecord, 'uuid'>;

/** How an attempt ended: its key and what its end sets. */
export type ModelCallEnd = Pick<
  ModelCallRecord,
  | 'step_instance_uuid'
  | 'turn'
  | 'attempt'
  | 'status'
  | 'error_message'
  | 'response'
  | 'replayed_from'
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'cached_tokens'
  | 'total_tokens'
  | 'cost'
  | 'cached_from'
  | 'duration_ms'
  | 'finished_at'
>;
export type ToolCallEnd = Pick<
  ToolCallRecord,
  | 'step_instance_uuid'
  | 'tool_call_id'
  | 'attempt'
  | 'status'
  | 'output'
  | 'replayed_from'
  | 'error_message'
  | 'duration_ms'
  | 'finished_at'
>;

/** A message for a step's transcript, at `position` (see appendMessageStatements). */
export interface TranscriptAnswer {
  instance_uuid: string;
  position: number;
  message: unknown;
}

/** What every attempt's row has: the step it is under and its number. */
type AttemptRow = { step_instance_uuid: string; attempt: number };

const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal ran the call again once it noticed';

/**
 * What tells a kind of call's rows apart: its table, the column naming one call of a step (its key is the
 * step, that column and the attempt), and the columns an attempt's end sets, JSON-encoded ones named.
 */
export interface CallKind<End extends AttemptRow> {
  entity: typeof ModelCallEntity | typeof ToolCallEntity;
  call: { column: string; of: (end: End) => unknown };
  ended: (keyof End & string)[];
  json: (keyof End & string)[];
}

export const MODEL_CALLS: CallKind<ModelCallEnd> = {
  entity: ModelCallEntity,
  call: { column: 'turn', of: (end) => end.turn },
  ended: [
    'status',
    'error_message',
    'response',
    'replayed_from',
    'prompt_tokens',
    'completion_tokens',
    'cached_tokens',
    'total_tokens',
    'cost',
    'cached_from',
    'duration_ms',
    'finished_at',
  ],
  json: ['response'],
};

export const TOOL_CALLS: CallKind<ToolCallEnd> = {
  entity: ToolCallEntity,
  call: { column: 'tool_call_id', of: (end) => end.tool_call_id },
  ended: ['status', 'error_message', 'output', 'replayed_from', 'duration_ms', 'finished_at'],
  json: ['output'],
};

/** An attempt as a new row (its own uuid; an upsert keeps the existing row's). */
const newAttemptRow = (call: AttemptRow) => ({ ...call, uuid: randomUUID() }) as never;

/** An attempt's row as it ends (or any row by its key): inserted, or updated where its `running` row is. */
export async function writeAttempt<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Promise<void> {
  await execute(manager, attemptStatement(manager, kind, call));
}

/** writeAttempt's statement, to execute or to send in a one-trip transaction. */
export function attemptStatement<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Statement {
  return insertRow(manager, kind.entity as never, newAttemptRow(call), kind.ended);
}

/**
 * A first attempt's `running` row: one INSERT. False, and nothing written, when its key is taken: the call
 * was run before by a worker that died (a local activity run again counts from attempt 1 again).
 */
export async function insertFirstAttempt<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Promise<boolean> {
  try {
    await execute(manager, insertRow(manager, kind.entity as never, newAttemptRow(call)));
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
export async function insertNextAttempt<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Promise<number> {
  const same = `${kind.call.column} = :call`;
  const params = { instance: call.step_instance_uuid, call: kind.call.of(call) };
  const last = await manager
    .createQueryBuilder(kind.entity, 'a')
    .select('MAX(a.attempt)', 'last')
    .where(`a.step_instance_uuid = :instance AND a.${same}`, params)
    .setLock('pessimistic_write')
    .getRawOne<{ last: number | null }>();
  const attempt = Math.max(call.attempt, Number(last?.last ?? 0) + 1);
  await manager
    .createQueryBuilder()
    .update(kind.entity)
    .set({ status: 'failed', error_message: LOST_ATTEMPT })
    .where(`step_instance_uuid = :instance AND ${same} AND attempt < :attempt AND status = 'running'`, { ...params, attempt })
    .execute();
  await writeAttempt(manager, kind, { ...call, attempt });
  return attempt;
}

/** An attempt whose worker died while it was in flight: left `running`, or closed as lost by a later attempt. */
const DIED_IN_FLIGHT = `(status = 'running' OR error_message = ?)`;

/** How many attempts of one call, before attempt `before`, died in flight with their worker. */
export async function diedAttempts<End extends AttemptRow>(
  manager: EntityManager,
  kind: CallKind<End>,
  instanceUuid: string,
  call: unknown,
  before: number,
): Promise<number> {
  const table = manager.connection.getMetadata(kind.entity).tableName;
  const [row] = (await manager.query(
    `SELECT COUNT(*) AS n FROM ${table} WHERE step_instance_uuid = ? AND ${kind.call.column} = ? AND attempt < ? AND ${DIED_IN_FLIGHT}`,
    [instanceUuid, call, before, LOST_ATTEMPT],
  )) as { n: number | string }[];
  return Number(row.n);
}

/** The most attempts any one call (model or tool) of the run lost with their worker: a run-wide read for the reconciler. */
export async function mostDiedAttempts(manager: EntityManager, runUuid: string): Promise<number> {
  const perCall = [MODEL_CALLS, TOOL_CALLS].map(
    (kind) =>
      `SELECT COUNT(*) AS n FROM ${manager.connection.getMetadata(kind.entity).tableName} WHERE run_uuid = ? AND ${DIED_IN_FLIGHT} GROUP BY step_instance_uuid, ${kind.call.column}`,
  );
  const [row] = (await manager.query(`SELECT COALESCE(MAX(n), 0) AS n FROM (${perCall.join(' UNION ALL ')}) died`, [
    runUuid,
    LOST_ATTEMPT,
    runUuid,
    LOST_ATTEMPT,
  ])) as { n: number | string }[];
  return Number(row.n);
}

/** Both of the above in one transaction (`manager` is its): the attempt the `running` row went under. */
export async function startAttempt<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Promise<number> {
  if (call.attempt === 1 && (await insertFirstAttempt(manager, kind, call))) return 1;
  return insertNextAttempt(manager, kind, call);
}

/**
 * Ends a call's `running` attempt and appends its answer to a step's transcript, in one transaction (its
 * statements, to send in one trip): the answer goes in only where the transcript holds exactly `position`
 * messages and the attempt is running, and the end only where the answer went in: both or neither. The last
 * statement's affected rows say which.
 */
export function endWithAnswer<End extends AttemptRow>(
  manager: EntityManager,
  kind: CallKind<End>,
  end: End,
  answer: TranscriptAnswer,
): Statement[] {
  const table = manager.connection.getMetadata(kind.entity).tableName;
  const running = `step_instance_uuid = ? AND ${kind.call.column} = ? AND attempt = ? AND status = 'running'`;
  const key = [end.step_instance_uuid, kind.call.of(end), end.attempt];
  const values = kind.ended.map((column) => (kind.json.includes(column) ? JSON.stringify(end[column] ?? null) : (end[column] ?? null)));
  return [
    ...appendMessageStatements(answer.instance_uuid, answer.position, answer.message, {
      sql: `EXISTS (SELECT 1 FROM ${table} WHERE ${running})`,
      params: key,
    }),
    {
      sql: `UPDATE ${table} SET ${kind.ended.map((column) => `${column} = ?`).join(', ')} WHERE ${running} AND @appended = 1`,
      params: [...values, ...key],
    },
  ];
}

/**
 * A call's first `running` row (a tool call its turn's answer asks for, or the model turn after a tool's answer),
 * sent after endWithAnswer's statements in their transaction: it goes in only where the answer did (@appended)
 * and the call has no row yet (a model may reuse a tool_call_id across turns; a turn an earlier run of the
 * activity began: the caller then numbers the attempt as ever), so a taken key never rolls back the answer. Its
 * affected rows say whether it went in.
 */
export function firstAttemptAfterAnswer<End extends AttemptRow>(manager: EntityManager, kind: CallKind<End>, call: End): Statement {
  const table = manager.connection.getMetadata(kind.entity).tableName;
  return insertWhere(
    manager,
    kind.entity as typeof ModelCallEntity,
    newAttemptRow(call),
    `DUAL WHERE @appended = 1 AND NOT EXISTS (SELECT 1 FROM ${table} WHERE step_instance_uuid = ? AND ${kind.call.column} = ?)`,
    [call.step_instance_uuid, kind.call.of(call)],
  );
}
