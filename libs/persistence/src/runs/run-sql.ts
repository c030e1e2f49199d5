// What the run repositories share: their transactions (whole, or one statement), a run's place among its
// user's runs in flight, the token sums of a run or a step, and the statement that closes a step.
import type { DataSource, EntityManager } from 'typeorm';
import type { Statement } from '../one-trip-pool';
import { retryingRolledBack } from '../rolled-back';

/** Every write runs whole, and again if the server rolled it back (a dead connection, a lost deadlock). */
export function runTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return retryingRolledBack(() => dataSource.transaction(work));
}

/**
 * A write that is one statement needs no BEGIN and COMMIT round trips: it is its own transaction. Only for
 * writes that may run twice (setting a state, an upsert by key): a connection lost as it committed hides
 * whether it did, and it runs again.
 */
export function runStatement<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return retryingRolledBack(() => work(dataSource.manager));
}

/**
 * Locks the row of the run that step row `instanceUuid` belongs to, first in a transaction that inserts a row
 * referring to the run: the insert's foreign-key check takes a shared lock on the run's row, and the
 * run-events trigger then wants it exclusive (before counting the event), so two such inserts of one run at once
 * (a for_each's items side by side) each held the shared lock waiting for the other: a deadlock, of which
 * 20 of 100 items at max_concurrency 50 lost all three tries (BENCHMARKS.md). Taken exclusive first, they wait in turn.
 */
export const lockRunOf = (instanceUuid: string): Statement => ({
  sql: 'SELECT r.uuid FROM workflow_runs r JOIN workflow_step_instances s ON s.run_uuid = r.uuid WHERE s.uuid = ? FOR UPDATE',
  params: [instanceUuid],
});

/** A JSON value as a raw query returns it: text from a LONGTEXT column, already parsed when the server typed it JSON (MySQL 8's JSON functions). */
export const jsonOf = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : (value ?? null));

/**
 * A step's messages are its model_messages (written whole: a prompt, a completed step's transcript) followed
 * by its step_messages rows from that length on, one per message appended (an agent's turns and tool answers):
 * an append writes one small row, however long the transcript.
 */
const MESSAGE_COUNT = `COALESCE(JSON_LENGTH(s.model_messages), 0) + (SELECT COUNT(*) FROM step_messages m WHERE m.instance_uuid = s.uuid)`;

/**
 * Appends `message` to a step's messages when they number exactly `position` (and `also` holds, a condition
 * with its values); nothing otherwise, and a duplicate key when a racing append took the position. Sets
 * @appended to the rows written (0 or 1), for a statement after it in the same batch.
 */
export function appendMessageStatements(
  instanceUuid: string,
  position: number,
  message: unknown,
  also: Statement = { sql: 'TRUE', params: [] },
): Statement[] {
  return [
    {
      sql: `INSERT INTO step_messages (instance_uuid, position, message)
        SELECT s.uuid, ?, ? FROM workflow_step_instances s WHERE s.uuid = ? AND ${MESSAGE_COUNT} = ? AND ${also.sql}`,
      params: [position, JSON.stringify(message), instanceUuid, position, ...also.params],
    },
    { sql: 'SET @appended := ROW_COUNT()', params: [] },
  ];
}

/** A step's messages as one list of rows: position -1 its model_messages (a JSON array), then its appended ones in order. */
export const MESSAGES_OF = `SELECT -1 AS position, model_messages AS message FROM workflow_step_instances WHERE uuid = ?
  UNION ALL SELECT position, message FROM step_messages WHERE instance_uuid = ? ORDER BY position`;

/** How many messages a step has, and the one at a position (params: the position, then as `$[n]`, and the step). */
export const MESSAGE_AT = `SELECT ${MESSAGE_COUNT} AS length,
  COALESCE((SELECT message FROM step_messages m WHERE m.instance_uuid = s.uuid AND m.position = ?), JSON_EXTRACT(s.model_messages, ?)) AS message
  FROM workflow_step_instances s WHERE s.uuid = ?`;

/** Drops a step's appended messages: its model_messages, written whole with them, hold them now. */
export const dropAppendedMessages = (instanceUuid: string): Statement => ({
  sql: 'DELETE FROM step_messages WHERE instance_uuid = ?',
  params: [instanceUuid],
});

/** The messages MESSAGES_OF read, in order: the base's, then the appended ones. */
export function messagesFromRows(rows: { position: number | string; message: unknown }[]): unknown[] | null {
  if (!rows.length) return null;
  const [base, ...appended] = rows;
  const messages = [...((jsonOf(base.message) as unknown[] | null) ?? []), ...appended.map((row) => jsonOf(row.message))];
  return base.message === null && !appended.length ? null : messages;
}

/** Gives back the place of a run `r` among its user's runs in flight, its quota row joined as `q`. */
export const GIVE_RUN_PLACE = 'q.runs_in_flight = GREATEST(q.runs_in_flight - 1, 0)';

/** Gives back the place the run took among its user's runs in flight (`user_quotas`). */
export async function giveRunPlace(manager: EntityManager, runUuid: string): Promise<void> {
  await manager.query(`UPDATE user_quotas q JOIN workflow_runs r ON r.user_id = q.user_id SET ${GIVE_RUN_PLACE} WHERE r.uuid = ?`, [
    runUuid,
  ]);
}

/**
 * A query of one row (p, c, t) summing a step's completed model calls, its iterations' and executions'
 * included, to read or to join in the UPDATE that closes the step.
 */
export function stepTokensFrom(instanceUuid: string): { sql: string; params: string[] } {
  // A join on the step, its iterations or executions, and a looping execution's iterations (by index), not
  // an IN over a UNION, which MariaDB evaluates row by row. The UNION also keeps the derived table
  // materialised, so an UPDATE of workflow_step_instances may join it.
  const steps = `(SELECT ? AS uuid
      UNION ALL SELECT uuid FROM workflow_step_instances WHERE parent_instance_uuid = ?
      UNION ALL SELECT n.uuid FROM workflow_step_instances c JOIN workflow_step_instances n ON n.parent_instance_uuid = c.uuid WHERE c.parent_instance_uuid = ?) s`;
  return tokenSums(`${steps} JOIN model_calls m ON m.step_instance_uuid = s.uuid WHERE m.status = 'completed'`, [
    instanceUuid,
    instanceUuid,
    instanceUuid,
  ]);
}

/** The same for a run: all its completed model calls. */
export const runTokensFrom = (runUuid: string) => tokenSums("model_calls m WHERE m.run_uuid = ? AND m.status = 'completed'", [runUuid]);

/** The tokens (p, c, t) and the cost (d: null as soon as one call has no price, never a partial sum passed off as the whole). */
const tokenSums = (from: string, params: string[]) => ({
  sql: `SELECT COALESCE(SUM(m.prompt_tokens), 0) AS p, COALESCE(SUM(m.completion_tokens), 0) AS c, COALESCE(SUM(m.total_tokens), 0) AS t,
      CASE WHEN COUNT(*) = COUNT(m.cost) THEN COALESCE(SUM(m.cost), 0) END AS d FROM ${from}`,
  params,
});

/** How a step's row closes: completed (with its output, and its messages when they changed) or failed. */
export interface StepClosing {
  status: 'completed' | 'failed';
  output_id?: string | null;
  error_message: string | null;
  model_messages?: unknown[];
}

/** Ends a step in one statement: its fields, its tokens and cost summed from its model calls, its finish time and duration. */
export function closeStepStatement(
  instanceUuid: string,
  { status, output_id, error_message, model_messages }: StepClosing,
  unlessCompleted: boolean,
): Statement {
  const fields = Object.entries({
    status,
    error_message,
    output_id,
    model_messages: model_messages && JSON.stringify(model_messages),
  }).filter(([, value]) => value !== undefined);
  const tokens = stepTokensFrom(instanceUuid);
  return {
    sql: `UPDATE workflow_step_instances i JOIN (${tokens.sql}) t
     SET ${fields.map(([column]) => `i.${column} = ?`).join(', ')}, i.prompt_tokens = t.p, i.completion_tokens = t.c, i.total_tokens = t.t, i.cost = t.d,
         i.finished_at = CURRENT_TIMESTAMP(3), i.duration_ms = TIMESTAMPDIFF(MICROSECOND, i.started_at, CURRENT_TIMESTAMP(3)) DIV 1000
     WHERE i.uuid = ?${unlessCompleted ? " AND i.status <> 'completed'" : ''}`,
    params: [...tokens.params, ...fields.map(([, value]) => value), instanceUuid],
  };
}
