// How a run ends, whoever ends it: its workflow (the finishRun activity), a start Temporal refused, the
// reconciler recording an end the execution had without the run saying so. The rules are here; the run's
// repository executes them in one transaction (RunRepository.end), only while the run is in flight, so an
// end is recorded once however many callers end it, and it gives back the place the start took among its
// user's runs in flight. What GET shows of an end not recorded yet comes from the same rules (asEnded).
import { isInFlight, outcomeOf, runWorkflowId, type FinalStatus, type GuardRailHit, type StepStatus } from '@app/contracts';
import type { ModelCallRecord, RunEnding, RunRecord, RunWithSteps, StepWithExecutions } from '@app/persistence';
import type { ClosedExecution, ExecutionState } from './run-launcher';

export interface RunEnd {
  status: FinalStatus;
  error_message: string | null;
  /** The guard rail the run's walk ended on, when it did (its message is error_message). */
  guard_rail?: GuardRailHit;
}

/** Rows still open when a run ends: the steps it never reached (and, but for the ones below, the ones it was in). */
const OPEN: readonly StepStatus[] = ['pending', 'running', 'awaiting_input'];
/** The steps an execution was in when it ended without recording it: failed, as interrupted, rather than skipped. */
const INTERRUPTED: readonly StepStatus[] = ['running', 'awaiting_input'];
const INTERRUPTED_ATTEMPT = 'Interrupted: the run ended before this attempt finished';
/** The workflow's column that counts runs ending this way (a cancelled run counts in none). */
const COUNTERS = { failed: 'failed_runs', successful: 'successful_runs', cancelled: null } as const;

/** How long a run may have no Temporal execution before it counts as never started (the API starts it right after recording it). */
export const START_GRACE_MS = 60_000;

/** What a run that has lost its execution ends with. */
export const NO_EXECUTION: RunEnd = {
  status: 'failed',
  error_message: 'The run has no Temporal execution: it never started, or Temporal no longer keeps it',
};

/**
 * A run ends: the steps it did not reach are skipped, the calls still running closed as interrupted, and its
 * workflow counts it by its outcome.
 */
export function runEnding(runUuid: string, { status, error_message, guard_rail }: RunEnd): RunEnding {
  return {
    run_uuid: runUuid,
    status,
    error_message,
    guard_rail: guard_rail ?? null,
    failed_steps: [],
    skipped_from: OPEN,
    interrupted_calls: INTERRUPTED_ATTEMPT,
    counter: COUNTERS[outcomeOf(status)],
  };
}

/** A run whose execution ended without it recording so: the steps it was in fail first, as interrupted. */
export function interruptedEnding(run: RunWithSteps, end: RunEnd): RunEnding {
  const error_message = interruption(end);
  return {
    ...runEnding(run.uuid, end),
    failed_steps: run.steps.filter(isInterrupted).map((step) => ({ instance_uuid: step.uuid, error_message })),
  };
}

/** How a closed execution reads as the run's end. */
export function endOfExecution(execution: ClosedExecution): RunEnd {
  switch (execution.closed) {
    case 'completed': {
      const { status, error_message } = execution.result;
      return { status: isInFlight(status) ? 'failed' : (status as FinalStatus), error_message };
    }
    case 'cancelled':
      return { status: 'cancelled', error_message: 'Cancelled in Temporal' };
    case 'timed_out':
      return { status: 'failed', error_message: 'The Temporal execution timed out' };
    case 'terminated':
      // From the Web UI or CLI, or by the server (a payload over its limit).
      return { status: 'failed', error_message: `Terminated in Temporal: ${execution.failure}` };
    case 'failed':
      return { status: 'failed', error_message: `The Temporal execution failed: ${execution.failure}` };
  }
}

/**
 * The end a run in flight had without recording it (its execution closed, or never was past START_GRACE_MS),
 * or null: it has not ended, or it recorded its end itself.
 */
export function unrecordedEnd(run: RunRecord, execution: ExecutionState, now: Date): RunEnd | null {
  if (!isInFlight(run.status) || execution.state === 'running') return null;
  if (execution.state === 'closed') return endOfExecution(execution);
  return now.getTime() - run.created_at.getTime() < START_GRACE_MS ? null : NO_EXECUTION;
}

/** Whether the API may start the run's execution itself: a run it started (`run-<uuid>`) that waits for nobody. */
export const startableByApi = (run: RunRecord): boolean => run.status === 'running' && run.temporal_workflow_id === runWorkflowId(run.uuid);

/**
 * The run as it reads once `interruptedEnding` is recorded: what a read shows of an end the run did not
 * record, until the reconciler records it (a read never writes). Tokens are those of the calls the read
 * holds (a loop's first and last iterations).
 */
export function asEnded(run: RunWithSteps, end: RunEnd, at: Date): RunWithSteps {
  const message = interruption(end);
  const steps = run.steps.map((step) =>
    skipped(
      isInterrupted(step)
        ? {
            ...step,
            ...tokensOf(step),
            status: 'failed' as const,
            error_message: message,
            finished_at: at,
            duration_ms: durationTo(step, at),
          }
        : step,
    ),
  );
  return { ...endedRecord(run, end, at), ...tokensOf({ model_calls: [], executions: run.steps }), steps };
}

/** The run's own row as it reads once the end is recorded. */
export function endedRecord<T extends RunRecord>(run: T, end: RunEnd, at: Date): T {
  return { ...run, status: end.status, error_message: end.error_message, finished_at: at };
}

const interruption = (end: RunEnd) => `Interrupted: ${end.error_message}`;
const isInterrupted = (step: StepWithExecutions) => INTERRUPTED.includes(step.status);
const durationTo = (step: StepWithExecutions, at: Date) => (step.started_at ? at.getTime() - step.started_at.getTime() : null);

/** A row still open, and every open row beneath it, marked skipped. */
function skipped(step: StepWithExecutions): StepWithExecutions {
  return { ...step, ...(OPEN.includes(step.status) ? { status: 'skipped' as const } : {}), executions: step.executions.map(skipped) };
}

/** The tokens and cost (null when one call has no price) of the completed model calls of a row and of every row beneath it. */
function tokensOf(step: Pick<StepWithExecutions, 'model_calls' | 'executions'>): {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number | null;
} {
  const calls: ModelCallRecord[] = [];
  const gather = (row: Pick<StepWithExecutions, 'model_calls' | 'executions'>): void => {
    calls.push(...row.model_calls.filter((call) => call.status === 'completed'));
    row.executions.forEach(gather);
  };
  gather(step);
  const sum = (pick: (call: ModelCallRecord) => number) => calls.reduce((total, call) => total + pick(call), 0);
  return {
    prompt_tokens: sum((call) => call.prompt_tokens),
    completion_tokens: sum((call) => call.completion_tokens),
    total_tokens: sum((call) => call.total_tokens),
    cost: calls.every((call) => call.cost !== null) ? Math.round(sum((call) => call.cost ?? 0) * 1e9) / 1e9 : null,
  };
}
