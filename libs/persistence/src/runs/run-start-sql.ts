// A run's start in as few round trips as its guarantees allow: its new rows in three plain INSERTs (no
// ORM query building, the steps in one statement), then the two rows every start shares (the user's
// place in flight, the workflow's run count), so that concurrent starts wait on those locks only for two
// statements and the commit. `writtenRun` is the run as these rows show it, so the start's answer needs
// no read back.
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@app/domain';
import type { NewRun, OutputRecord, RunWithSteps, StepWithExecutions } from './run.records';

/** The user has no `user_quotas` row yet: it is inserted outside the transaction, which then runs again. */
export class NoQuotaRow extends Error {}

/** The database's clock (the rows' timestamps) and whether the user's counter row exists. */
export async function startClock(manager: EntityManager, userId: string): Promise<Date> {
  const [row] = (await manager.query('SELECT NOW(3) AS now, EXISTS (SELECT 1 FROM user_quotas WHERE user_id = ?) AS counted', [userId])) as { now: Date; counted: number | string }[];
  if (Number(row.counted) !== 1) throw new NoQuotaRow();
  return row.now;
}

/** A new run's budget: its limit, not paused. */
const startingBudget = (run: NewRun) => (run.budget ? { max_tokens: run.budget.max_tokens, paused_at_tokens: null } : null);

const placeholders = (count: number) => `(${Array.from({ length: count }, () => '?').join(', ')})`;
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The run's row, its own trigger output (a resumed run's is its parent's) and its step rows. */
export async function insertRunRows(manager: EntityManager, run: NewRun, now: Date): Promise<void> {
  const trigger = 'carried_output_id' in run.trigger_output ? null : run.trigger_output;
  const runColumns = [
    ['uuid', run.uuid],
    ['user_id', run.user_id],
    ['workflow_uuid', run.workflow_uuid],
    ['workflow_name', run.workflow_name],
    ['status', 'running'],
    ['definition', JSON.stringify(run.definition)],
    ['trigger_output_id', trigger ? trigger.uuid : (run.trigger_output as { carried_output_id: string | null }).carried_output_id],
    ['temporal_workflow_id', run.temporal_workflow_id],
    ['schedule_id', run.schedule_id],
    ['parent_run_uuid', run.resume?.parent_run_uuid ?? null],
    ['resumed_from_step_uuid', run.resume?.from_step_uuid ?? null],
    ['dry_run', run.dry_run ? 1 : 0],
    ['budget', json(startingBudget(run))],
    ['tool_drift', json(run.tool_drift)],
    ['started_at', now],
    ['created_at', now],
    ['updated_at', now],
  ] as const;
  await manager.query(`INSERT INTO workflow_runs (${runColumns.map(([name]) => name).join(', ')}) VALUES ${placeholders(runColumns.length)}`, runColumns.map(([, value]) => value));
  if (trigger) {
    await manager.query(
      'INSERT INTO step_outputs (uuid, run_uuid, user_id, step_instance_uuid, raw_data, summary, markdown_representation, size_bytes, created_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)',
      [trigger.uuid, run.uuid, run.user_id, JSON.stringify(trigger.raw_data), trigger.summary, trigger.markdown_representation, trigger.size_bytes, now],
    );
  }
  if (!run.steps.length) return;
  const STEP_COLUMNS = 'uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status, output_id, carried_from_run_uuid, finished_at';
  const values = run.steps.flatMap(({ carried, ...step }, position) => [
    step.uuid,
    run.uuid,
    run.user_id,
    step.step_definition_uuid,
    step.step_name,
    step.step_type,
    position,
    carried ? 'completed' : 'pending',
    carried?.output_id ?? null,
    carried?.from_run_uuid ?? null,
    carried?.finished_at ?? null,
  ]);
  await manager.query(`INSERT INTO workflow_step_instances (${STEP_COLUMNS}) VALUES ${run.steps.map(() => placeholders(11)).join(', ')}`, values);
}

/**
 * Takes a place among the user's runs in flight, then counts the run on its workflow: last in the
 * transaction, in the order every other writer of both rows takes them (the quota row first).
 */
export async function takePlaceAndCount(manager: EntityManager, run: NewRun, limit: number | null): Promise<void> {
  const most = limit ?? Number.MAX_SAFE_INTEGER;
  const taken = (await manager.query('UPDATE user_quotas SET runs_in_flight = runs_in_flight + 1 WHERE user_id = ? AND runs_in_flight < ?', [run.user_id, most])) as { affectedRows: number };
  if (taken.affectedRows === 0) {
    throw new DomainError(ErrorCode.TooManyRunsInFlight, `You have ${most} runs running or waiting already: let some end, or cancel them`, { limit: most });
  }
  await manager.query('UPDATE workflows SET total_runs = total_runs + 1 WHERE uuid = ?', [run.workflow_uuid]);
}

/**
 * The run as its new rows show it, what GET /runs/{uuid} answers until the workflow moves it on. Null for
 * a resumed run: its trigger output and carried outputs are its parent's rows, read with it.
 */
export function writtenRun(run: NewRun, now: Date): RunWithSteps | null {
  if ('carried_output_id' in run.trigger_output || run.steps.some((step) => step.carried)) return null;
  const trigger: OutputRecord = { ...run.trigger_output, run_uuid: run.uuid, user_id: run.user_id, step_instance_uuid: null, created_at: now };
  const tokens = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const steps = run.steps.map(
    (step, position): StepWithExecutions => ({
      uuid: step.uuid,
      run_uuid: run.uuid,
      step_definition_uuid: step.step_definition_uuid,
      step_name: step.step_name,
      step_type: step.step_type,
      position,
      status: 'pending',
      input_data: null,
      messages: null,
      output_id: null,
      carried_from_run_uuid: null,
      error_message: null,
      attempts: 0,
      ...tokens,
      duration_ms: null,
      started_at: null,
      finished_at: null,
      parent_instance_uuid: null,
      execution_index: null,
      loop_state: null,
      output: null,
      model_calls: [],
      tool_calls: [],
      executions: [],
      execution_count: 0,
    }),
  );
  return {
    uuid: run.uuid,
    user_id: run.user_id,
    workflow_uuid: run.workflow_uuid,
    workflow_name: run.workflow_name,
    status: 'running',
    definition: run.definition,
    trigger_output_id: trigger.uuid,
    temporal_workflow_id: run.temporal_workflow_id,
    schedule_id: run.schedule_id,
    parent_run_uuid: null,
    resumed_from_step_uuid: null,
    dry_run: run.dry_run ?? false,
    budget: startingBudget(run),
    error_message: null,
    notification: null,
    tool_drift: run.tool_drift ?? null,
    messages: null,
    ...tokens,
    started_at: now,
    finished_at: null,
    created_at: now,
    trigger_output: trigger,
    resumed_by: [],
    steps,
  };
}
