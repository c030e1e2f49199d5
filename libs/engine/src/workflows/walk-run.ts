// A run that is not a conversation: one walk from its start (the entry step, a resumed run's step, or the
// loop a continued execution picks up) to its end, then its status.
import { ApplicationFailure, CancellationScope, ContinueAsNew, isCancellation } from '@temporalio/workflow';
import { RUN_QUARANTINED, type RunWorkflowResult } from '@app/contracts';
import type { Activation, WalkPlan } from './graph/walk-plan';
import { graphWalker } from './graph/walker';
import { closeCancelled, closeGraphSteps, finish } from './run-end';
import type { RunScope } from './run-scope';

export async function runWalk(scope: RunScope, plan: WalkPlan): Promise<RunWorkflowResult> {
  const { input } = scope;
  const walker = graphWalker(scope, plan, new Map());
  const { executions, failed } = walker.tally;
  const { continued, resume } = input;
  const start: Activation = continued
    ? { step_uuid: continued.step_uuid, previous_step_uuid: continued.previous_step_uuid, loop: continued }
    : resume
      ? { step_uuid: resume.from_step_uuid, previous_step_uuid: resume.previous_step_uuid }
      : { step_uuid: plan.graph.entry_node, previous_step_uuid: null };
  let outcome;
  try {
    outcome = await walker.walk(start);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error) || CancellationScope.current().consideredCancelled)
      await closeCancelled(scope, walker.tally, plan.rowPerExecution);
    throw error;
  }
  if (plan.rowPerExecution) await closeGraphSteps(scope, walker.tally);
  const { stopped, guard, failures } = outcome;
  const message = walker.problemOf(outcome);
  // The guard's message is the run's error when a guard rail tripped: its rail goes with it as data.
  const rail = guard?.rail;
  if (outcome.quarantined) {
    // Failed whatever else completed: resuming it would only run the call that killed the workers again.
    await finish(scope, 'failed', message, rail);
    throw ApplicationFailure.nonRetryable(message, RUN_QUARANTINED);
  }
  if (stopped) return await finish(scope, 'stopped', stopped);
  if (!message) return await finish(scope, 'completed', null);
  // Outputs that stay readable (steps that completed, or were carried over from a parent run or an earlier
  // execution) make the run a partial success; a resume from the failed step reuses them.
  const kept = failed.size < executions.size || Boolean(resume?.previous_step_uuid ?? continued?.previous_step_uuid);
  await finish(scope, (guard ? failures.length > 0 : kept) ? 'partial_success' : 'failed', message, rail);
  throw ApplicationFailure.nonRetryable(message, guard?.type ?? 'StepFailed');
}
