// A run's start in two round trips: its statements in one, then COMMIT once their results show the user had
// a place left (see OneTripPool). Its new rows go in three plain INSERTs (no ORM query building, the steps in
// one statement), then the two rows every start shares (the user's place in flight, the workflow's run
// count), so that concurrent starts wait on those locks only for two statements and the commit. Every row
// is stamped with one reading of the database's clock. `writtenRun` is the run as these rows show it, so
// the start's answer needs no read back.
import { DomainError, ErrorCode } from '@app/domain';
import { affectedRows, type Statement, type StatementResult } from '../one-trip-pool';
import type { NewRun, NewTriggerOutput, OutputRecord, RunWithSteps, StepWithExecutions } from './run.records';

/** The user has no `user_quotas` row yet: it is inserted outside the transaction, which then runs again. */
export class NoQuotaRow extends Error {}

/** The start's statements: its clock and counter check, its rows, its place and count (see startChecked). */
export function startStatements(run: NewRun, limit: number | null): Statement[] {
  return [
    { sql: 'SET @now = NOW(3)', params: [] },
    // A user variable holds the time as text: read back as what it is.
    {
      sql: 'SELECT CAST(@now AS DATETIME(3)) AS now, EXISTS (SELECT 1 FROM user_quotas WHERE user_id = ?) AS counted',
      params: [run.user_id],
    },
    ...runRows(run),
    {
      sql: 'UPDATE user_quotas SET runs_in_flight = runs_in_flight + 1 WHERE user_id = ? AND runs_in_flight < ?',
      params: [run.user_id, limit ?? Number.MAX_SAFE_INTEGER],
    },
    { sql: 'UPDATE workflows SET total_runs = total_runs + 1 WHERE uuid = ?', params: [run.workflow_uuid] },
  ];
}

/**
 * The database time the start's rows were written at, once its results show the user's counter row there
 * and a place taken in it (else what to throw, and the transaction rolls back).
 */
export function startChecked(results: StatementResult[], limit: number | null): Date {
  const [clock] = results[1] as { now: Date; counted: number | string }[];
  if (Number(clock.counted) !== 1) throw new NoQuotaRow();
  // The place: the next-to-last statement's (startStatements).
  if (affectedRows(results[results.length - 2]) === 0) {
    const most = limit ?? Number.MAX_SAFE_INTEGER;
    throw new DomainError(ErrorCode.TooManyRunsInFlight, `You have ${most} runs running or waiting already: let some end, or cancel them`, {
      limit: most,
    });
  }
  return clock.now;
}

/** A new run's budget: its limits (max_cost too when set: each model call reserves against it), not paused. */
const startingBudget = (run: NewRun) =>
  run.budget
    ? {
        max_tokens: run.budget.max_tokens,
        paused_at_tokens: null,
        ...(run.budget.max_cost !== undefined ? { max_cost: run.budget.max_cost, paused_at_cost: null } : {}),
      }
    : null;

const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');
const placeholders = (count: number) => `(${marks(count)})`;
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The run's row, its own trigger output (a resumed run's is its parent's) and its step rows. */
function runRows(run: NewRun): Statement[] {
  const trigger = 'carried_output_id' in run.trigger_output ? null : run.trigger_output;
  const runColumns = [
    ['uuid', run.uuid],
    ['user_id', run.user_id],
    ['workflow_uuid', run.workflow_uuid],
    ['workflow_name', run.workflow_name],
    ['workflow_version', run.workflow_version ?? null],
    ['status', 'running'],
    ['definition', JSON.stringify(run.definition)],
    ['trigger_output_id', trigger ? trigger.uuid : (run.trigger_output as { carried_output_id: string | null }).carried_output_id],
    ['temporal_workflow_id', run.temporal_workflow_id],
    ['schedule_id', run.schedule_id],
    ['parent_run_uuid', run.resume?.parent_run_uuid ?? run.called_by?.run_uuid ?? null],
    ['parent_step_uuid', run.called_by?.step_uuid ?? null],
    ['resumed_from_step_uuid', run.resume?.from_step_uuid ?? null],
    ['dry_run', run.dry_run ? 1 : 0],
    ['budget', json(startingBudget(run))],
    ['tool_drift', json(run.tool_drift)],
    ['replay_of', run.replay?.of ?? null],
    ['replay_offline', run.replay?.offline ? 1 : 0],
  ] as const;
  const statements: Statement[] = [
    {
      sql: `INSERT INTO workflow_runs (${runColumns.map(([name]) => name).join(', ')}, started_at, created_at, updated_at) VALUES (${marks(runColumns.length)}, @now, @now, @now)`,
      params: runColumns.map(([, value]) => value),
    },
  ];
  if (trigger) {
    statements.push({
      sql: 'INSERT INTO step_outputs (uuid, run_uuid, user_id, step_instance_uuid, raw_data, summary, markdown_representation, size_bytes, created_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, @now)',
      params: [
        trigger.uuid,
        run.uuid,
        run.user_id,
        'raw_json' in trigger ? trigger.raw_json : JSON.stringify(trigger.raw_data),
        trigger.summary,
        trigger.markdown_representation,
        trigger.size_bytes,
      ],
    });
  }
  if (!run.steps.length) return statements;
  const STEP_COLUMNS =
    'uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status, output_id, carried_from_run_uuid, finished_at';
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
  return [
    ...statements,
    {
      sql: `INSERT INTO workflow_step_instances (${STEP_COLUMNS}) VALUES ${run.steps.map(() => placeholders(11)).join(', ')}`,
      params: values,
    },
  ];
}

/**
 * The trigger output as its row shows it. One stored from its JSON (a webhook delivery's) is parsed only if
 * someone reads its raw_data: the delivery's answer does not, and its parse would hold the event loop.
 */
function writtenTrigger(output: NewTriggerOutput, run: NewRun, now: Date): OutputRecord {
  const { uuid, summary, markdown_representation, size_bytes } = output;
  const shown = { uuid, run_uuid: run.uuid, user_id: run.user_id, step_instance_uuid: null, summary, markdown_representation, size_bytes };
  if (!('raw_json' in output)) return { ...shown, raw_data: output.raw_data, created_at: now };
  let parsed: { value: unknown } | null = null;
  const trigger = { ...shown, created_at: now } as OutputRecord;
  Object.defineProperty(trigger, 'raw_data', {
    enumerable: true,
    get: () => (parsed ??= { value: JSON.parse(output.raw_json) as unknown }).value,
  });
  return trigger;
}

/**
 * The run as its new rows show it, what GET /runs/{uuid} answers until the workflow moves it on. Null for
 * a resumed run: its trigger output and carried outputs are its parent's rows, read with it.
 */
export function writtenRun(run: NewRun, now: Date): RunWithSteps | null {
  if ('carried_output_id' in run.trigger_output || run.steps.some((step) => step.carried)) return null;
  const trigger = writtenTrigger(run.trigger_output, run, now);
  const tokens = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost: null };
  const steps = run.steps.map((step, position): StepWithExecutions => ({
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
  }));
  return {
    uuid: run.uuid,
    user_id: run.user_id,
    workflow_uuid: run.workflow_uuid,
    workflow_name: run.workflow_name,
    workflow_version: run.workflow_version ?? null,
    status: 'running',
    definition: run.definition,
    trigger_output_id: trigger.uuid,
    temporal_workflow_id: run.temporal_workflow_id,
    schedule_id: run.schedule_id,
    parent_run_uuid: run.resume?.parent_run_uuid ?? run.called_by?.run_uuid ?? null,
    parent_step_uuid: run.called_by?.step_uuid ?? null,
    resumed_from_step_uuid: null,
    dry_run: run.dry_run ?? false,
    budget: startingBudget(run),
    spend_pause: null,
    error_message: null,
    notification: null,
    tool_drift: run.tool_drift ?? null,
    replay_of: run.replay?.of ?? null,
    replay_offline: run.replay?.offline ?? false,
    messages: null,
    ...tokens,
    started_at: now,
    finished_at: null,
    created_at: now,
    trigger_output: trigger,
    resumed_by: [],
    children: [],
    steps,
  };
}
