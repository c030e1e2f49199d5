// What the run repositories share: their transactions, the finish-time expression, a run's place among
// its user's runs in flight, and the token sums of a run or a step.
import type { DataSource, EntityManager } from 'typeorm';
import { retryingRolledBack } from '../rolled-back';

export const NOW = () => 'CURRENT_TIMESTAMP(3)';

/** Every write runs whole, and again if the server rolled it back (a dead connection, a lost deadlock). */
export function runTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return retryingRolledBack(() => dataSource.transaction(work));
}

/** Gives back the place the run took among its user's runs in flight (`user_quotas`). */
export async function giveRunPlace(manager: EntityManager, runUuid: string): Promise<void> {
  await manager.query('UPDATE user_quotas q JOIN workflow_runs r ON r.user_id = q.user_id SET q.runs_in_flight = GREATEST(q.runs_in_flight - 1, 0) WHERE r.uuid = ?', [runUuid]);
}

export interface TokenSums {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A run's tokens, or a step's: a looping step's are its iterations', a graph step's its executions'. */
export async function sumTokens(manager: EntityManager, column: 'run_uuid' | 'step_instance_uuid', value: string): Promise<TokenSums> {
  // A join on the step, its iterations or executions, and a looping execution's iterations (by index), not
  // an IN over a UNION, which MariaDB evaluates row by row.
  const from =
    column === 'run_uuid'
      ? 'model_calls m WHERE m.run_uuid = ?'
      : `(SELECT ? AS uuid
          UNION ALL SELECT uuid FROM workflow_step_instances WHERE parent_instance_uuid = ?
          UNION ALL SELECT n.uuid FROM workflow_step_instances c JOIN workflow_step_instances n ON n.parent_instance_uuid = c.uuid WHERE c.parent_instance_uuid = ?) s
         JOIN model_calls m ON m.step_instance_uuid = s.uuid WHERE TRUE`;
  const [row] = (await manager.query(
    `SELECT COALESCE(SUM(m.prompt_tokens), 0) AS p, COALESCE(SUM(m.completion_tokens), 0) AS c, COALESCE(SUM(m.total_tokens), 0) AS t
     FROM ${from} AND m.status = 'completed'`,
    column === 'run_uuid' ? [value] : [value, value, value],
  )) as { p: number | string; c: number | string; t: number | string }[];
  return { prompt_tokens: Number(row.p), completion_tokens: Number(row.c), total_tokens: Number(row.t) };
}
