import { IN_FLIGHT_RUN_STATUSES } from '@app/contracts';
import { In, type EntityManager } from 'typeorm';
import { statementOf, type Statement } from '../one-trip-pool';
import { ModelCallEntity, StepInstanceEntity, ToolCallEntity } from './run.entities';
import type { RunCounter, RunEnding } from './run.records';
import { closeStepStatement, GIVE_RUN_PLACE, runTokensFrom } from './run-sql';

/** How long a streamed answer's pieces are kept: past MODEL_TIMEOUT_MS's default (120 s), no call streams longer. */
export const DELTAS_KEPT_SECONDS = 600;
/** At most this many pieces go with each run's end, so a backlog never makes one end slow. */
const DELTAS_SWEPT_PER_END = 5000;

/** The workflow's columns an end may count on: a column's name goes into the SQL, so only these. */
const COUNTER_COLUMNS: readonly RunCounter[] = ['successful_runs', 'failed_runs'];

/**
 * A run's end as statements of one transaction: its failed and skipped steps, its interrupted calls, then its
 * own row. The last one's affected rows say whether this end was the run's (RunRepository.end).
 */
export function runEndStatements(manager: EntityManager, ending: RunEnding): Statement[] {
  const { run_uuid: runUuid, counter } = ending;
  if (counter !== null && !COUNTER_COLUMNS.includes(counter)) throw new Error(`${String(counter)} counts no runs`);
  const update = (entity: typeof StepInstanceEntity | typeof ModelCallEntity | typeof ToolCallEntity) =>
    manager.createQueryBuilder().update(entity);
  const failed = ending.failed_steps.map(({ instance_uuid, error_message }) =>
    closeStepStatement(instance_uuid, { status: 'failed', error_message }, true),
  );
  const skipped = statementOf(
    update(StepInstanceEntity)
      .set({ status: 'skipped' })
      .where({ run_uuid: runUuid, status: In([...ending.skipped_from]) }),
  );
  const interrupted = [ModelCallEntity, ToolCallEntity].map((entity) =>
    statementOf(
      update(entity).set({ status: 'failed', error_message: ending.interrupted_calls }).where({ run_uuid: runUuid, status: 'running' }),
    ),
  );
  // One statement ends the run with its tokens and cost, gives back its place among its user's runs in flight and
  // counts it on its workflow; only while the run is in flight, so it is counted once however many runs
  // end at once.
  const tokens = runTokensFrom(runUuid);
  const ended: Statement = {
    sql: `UPDATE workflow_runs r JOIN (${tokens.sql}) t
         LEFT JOIN user_quotas q ON q.user_id = r.user_id
         ${counter ? 'LEFT JOIN workflows w ON w.uuid = r.workflow_uuid' : ''}
       SET r.status = ?, r.error_message = ?, r.guard_rail = ?, r.prompt_tokens = t.p, r.completion_tokens = t.c, r.total_tokens = t.t, r.cost = t.d, r.finished_at = CURRENT_TIMESTAMP(3),
           ${GIVE_RUN_PLACE}${counter ? `, w.${counter} = w.${counter} + 1` : ''}
       WHERE r.uuid = ? AND r.status IN (?)`,
    params: [
      ...tokens.params,
      ending.status,
      ending.error_message,
      ending.guard_rail && JSON.stringify(ending.guard_rail),
      runUuid,
      IN_FLIGHT_RUN_STATUSES,
    ],
  };
  // A streamed answer's pieces are for its watchers while it streams (its answer is in the audit once it
  // ended): each run's end sweeps away the pieces older than any call can stream, its own included once
  // they are, and never a piece a watcher of a call just ended may still be about to read.
  const deltas: Statement = {
    sql: 'DELETE FROM run_deltas WHERE created_at < NOW(3) - INTERVAL ? SECOND LIMIT ?',
    params: [DELTAS_KEPT_SECONDS, DELTAS_SWEPT_PER_END],
  };
  return [...failed, skipped, ...interrupted, deltas, ended];
}
