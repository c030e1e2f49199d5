// How a run ends: its status recorded, its graph steps' rows closed, and its owner notified if they asked.
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import { outcomeOf, type FinalStatus, type GuardRailHit, type RunActivities, type RunWorkflowResult } from '@app/contracts';
import { NOTIFICATION_OPTIONS } from './activity-options';
import type { RunScope } from './run-scope';

const notifications = proxyActivities<RunActivities>(NOTIFICATION_OPTIONS);

/** `guardRail`: the guard rail the run ends on (its message is `error_message`). */
export async function finish(
  scope: RunScope,
  status: FinalStatus,
  error_message: string | null,
  guardRail?: GuardRailHit,
): Promise<RunWorkflowResult> {
  // A chain whose last steps' activity recorded its end: no activity of its own.
  if (status !== 'completed' || !scope.counters.completedRecorded)
    await scope.bookkeeping.finishRun({
      run_uuid: scope.input.run_uuid,
      status,
      error_message,
      ...(guardRail ? { guard_rail: guardRail } : {}),
    });
  await notify(scope, status);
  return { status, error_message };
}

async function notify({ input }: RunScope, status: FinalStatus): Promise<void> {
  const { notify_url, notify_on_complete, notify_on_failure } = input.definition;
  const outcome = outcomeOf(status);
  const wanted = outcome === 'failed' ? notify_on_failure : outcome === 'successful' && notify_on_complete;
  // A dry run has no side effect, and a replay is a test of the definition: nobody is told either ended.
  if (!notify_url || !wanted || input.dry_run || input.replay) return;
  try {
    await notifications.notifyRunEnd({ run_uuid: input.run_uuid, user_id: input.user_id, url: notify_url });
  } catch {
    // Every attempt is recorded on the run; a receiver that never answers does not change the run's outcome.
  }
}

/** Which steps ran (executions by step) and which of them failed: what closing a graph run's rows needs. */
export interface StepTally {
  executions: Map<string, number>;
  failed: Set<string>;
}

/** A graph step's row ends with its latest execution's output, or failed when one of its executions failed. */
export async function closeGraphSteps(scope: RunScope, { executions, failed }: StepTally): Promise<void> {
  for (const stepUuid of executions.keys()) {
    await scope.bookkeeping.closeGraphStep({
      run_uuid: scope.input.run_uuid,
      user_id: scope.input.user_id,
      instance_uuid: scope.instanceOf.get(stepUuid)!,
      failed: failed.has(stepUuid),
    });
  }
}

/** A cancelled run still closes its rows and records its end, whatever the cancellation interrupted. */
export async function closeCancelled(scope: RunScope, tally: StepTally, rowPerExecution: boolean): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    if (rowPerExecution) await closeGraphSteps(scope, tally);
    await finish(scope, 'cancelled', 'Cancelled by request');
  });
}
