// A human_input step: the step and the run wait for a person (or until timeout_seconds, then the step's
// default or a failure); the answer is the step's output.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { GuardRailHit, HumanInputStep, StepResultRef, RunActivities, StepContext } from '@app/contracts';
import { BOOKKEEPING_OPTIONS } from './activity-options';
import type { RunScope } from './run-scope';

/** `reason`: why a guard rail handed the run to this step (its message), `guardRail`: which one, as data. */
export async function runHumanInput(
  scope: RunScope,
  step: HumanInputStep,
  context: StepContext,
  reason?: string,
  guardRail?: GuardRailHit,
): Promise<StepResultRef> {
  const activities = (label: string) => proxyActivities<RunActivities>({ ...BOOKKEEPING_OPTIONS, summary: `${step.name}: ${label}` });
  // A dry run asks nobody: the step's default, else an answer the activity makes up from its input_schema.
  if (scope.input.dry_run) return await activities('dry-run answer').answerHumanInput({ ...context, step, input: step.default ?? null });
  const announce = () =>
    activities('wait for input').awaitHumanInput({
      ...context,
      step,
      ...(reason ? { reason } : {}),
      ...(guardRail ? { guard_rail: guardRail } : {}),
    });
  const waitStarted = Date.now();
  const answer = await scope.inbox.wait(scope.input.run_uuid, step.uuid, step.timeout_seconds ?? null, announce);
  scope.counters.waitedForPeopleMs += Date.now() - waitStarted;
  if (answer.answered) return await activities('store the answer').answerHumanInput({ ...context, step, input: answer.input });
  if (step.default !== undefined) return await activities('take the default').answerHumanInput({ ...context, step, input: step.default });
  const message = `No answer within ${step.timeout_seconds} s`;
  await activities('time out').expireHumanInput({ ...context, step, error_message: message });
  throw ApplicationFailure.nonRetryable(message, 'HumanInputTimedOut');
}
