// A chain's LLM steps that follow one another run in one local activity (patch 'chain-steps-share-activity',
// issue #32): the first one's runLlmStep runs on into the steps after it, and the walk takes in each of those
// executions with the output handed back (execution.ts, takenAhead), counted, seen and routed as before. Where
// the last of them ends the chain, that activity records the run's end too. Only where the steps run locally
// in a chain, with no token budget to check between them: a chain's guard rails are its length.
import { ApplicationFailure, patched, sleep } from '@temporalio/workflow';
import {
  SPEND_LIMIT_REACHED_FAILURE,
  type ChainStepAhead,
  type ChainStepFailure,
  type CustomLlmStep,
  type StepContext,
  type StepDefinition,
  type StepResultRef,
} from '@app/contracts';
import { DEFAULT_RETRY } from '../activity-options';
import { nextTargets } from './routing';
import type { WalkState } from './walk-state';

/** At most this many steps run on in one activity: its result (their output references) stays small. */
const STEPS_AHEAD_MAX = 100;

/** What an execution ran ahead finds: its output, or the failure its step met there. */
export type RanAhead = { after: string; ref: StepResultRef } | { after: string; failed: ChainStepFailure };

/**
 * A chain's LLM step: its own activity running on into the steps after it. Those that ran there are taken in
 * by the walk without running (execution.ts, takenAhead); one that failed there comes here.
 */
export async function runChainLlmStep(
  state: WalkState,
  step: CustomLlmStep,
  context: StepContext,
  label: string | undefined,
): Promise<StepResultRef> {
  const found = state.ranAhead.get(step.uuid);
  state.ranAhead.delete(step.uuid);
  if (found && 'failed' in found && found.after === context.previous_output_id)
    return await runAfterFailure(state, step, context, label, found.failed);
  return await runFrom(state, step, context, label);
}

async function runFrom(state: WalkState, step: CustomLlmStep, context: StepContext, label: string | undefined): Promise<StepResultRef> {
  const { ahead, endsRun } = stepsAhead(state, step);
  const work = state.scope.stepWork(step, ahead.length ? `${step.name} (custom_llm) and up to ${ahead.length} steps after it` : label);
  const asked = { ...context, step, ...(ahead.length ? { run_on: ahead } : {}), ...(endsRun ? { ends_run: true as const } : {}) };
  const { ran_on, failed, run_ended, ...ref } = await work.runLlmStep(asked);
  let after = ref.output_id;
  for (const [index, ran] of (ran_on ?? []).entries()) {
    state.ranAhead.set(ahead[index].step.uuid, { after, ref: ran });
    after = ran.output_id;
  }
  const stoppedAt = ahead[ran_on?.length ?? 0];
  if (failed && stoppedAt) state.ranAhead.set(stoppedAt.step.uuid, { after, failed });
  if (run_ended) state.scope.counters.completedRecorded = true;
  return ref;
}

/**
 * The LLM steps that follow `step` one by one, each the only step after the one before it, that run locally too
 * (STEPS_AHEAD_MAX at most); `endsRun` when the last of them (or `step`) ends the chain. Asks the patch only
 * where either holds: runs begun before it record nothing.
 */
function stepsAhead(state: WalkState, step: CustomLlmStep): { ahead: ChainStepAhead[]; endsRun: boolean } {
  const { plan, byUuid, scope } = state;
  const ahead: ChainStepAhead[] = [];
  if (!sharesActivity(state, step)) return { ahead, endsRun: false };
  let targets = nextTargets(plan.graph, step.uuid, ANY_OUTPUT);
  while (ahead.length < STEPS_AHEAD_MAX) {
    const next = targets.length === 1 ? byUuid.get(targets[0]) : undefined;
    if (next?.type !== 'custom_llm' || next.loop || !scope.runsLocally(next)) break;
    ahead.push({ step: next, instance_uuid: scope.instanceOf.get(next.uuid)! });
    targets = nextTargets(plan.graph, next.uuid, ANY_OUTPUT);
  }
  const endsRun = targets.length === 0;
  return (ahead.length || endsRun) && patched('chain-steps-share-activity') ? { ahead, endsRun } : { ahead: [], endsRun: false };
}

/** Where a step's activity may run on into others and record the run's end: a chain's, run locally, with no budget to check. */
const sharesActivity = ({ plan, scope }: WalkState, step: StepDefinition): boolean =>
  !plan.rowPerExecution && !scope.budget && scope.runsLocally(step);

/** Whether the run ends with `step` (a chain's last), where its activity may record the run's end. */
export const endsChain = (state: WalkState, step: StepDefinition): boolean =>
  sharesActivity(state, step) && nextTargets(state.plan.graph, step.uuid, ANY_OUTPUT).length === 0;

/** A chain's edges are all ALWAYS: where a step goes does not depend on its output. */
const ANY_OUTPUT = { route: null, conditions_held: [] };

/**
 * A step that failed where it ran ahead, as its own activity would have: failed for good when its error is not
 * retryable or its retry policy allows one attempt; else, after the policy's first interval, its own activity
 * with the attempts left. A call refused at the spend limit runs as its own activity, which waits (spend-wait.ts).
 */
async function runAfterFailure(
  state: WalkState,
  step: CustomLlmStep,
  context: StepContext,
  label: string | undefined,
  failed: ChainStepFailure,
): Promise<StepResultRef> {
  if (failed.type === SPEND_LIMIT_REACHED_FAILURE) return await runFrom(state, step, context, label);
  const retry = { ...DEFAULT_RETRY, ...(step.retry_policy ?? {}) };
  if (!failed.retryable || retry.max_attempts <= 1)
    throw ApplicationFailure.create({ message: failed.message, type: failed.type, nonRetryable: true });
  await sleep(Math.max(1, Math.round(retry.initial_interval_seconds * 1000)));
  return await runFrom(state, { ...step, retry_policy: { ...retry, max_attempts: retry.max_attempts - 1 } }, context, label);
}
