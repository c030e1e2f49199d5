// A chain's LLM steps after the one an activity ran go on in the same activity (runLlmStep's `run_on`, patch
// 'chain-steps-share-activity' in the engine): no workflow task between them. Each keeps its own row and audit;
// a retried activity finds the steps it completed, as a step's own retry does.
import { ApplicationFailure, type Context } from '@temporalio/activity';
import type { ChainStepAhead, ChainStepsRan, CustomLlmStep, StepContext, StepResultRef } from '@app/contracts';
import { SHARED_ACTIVITY_MS, type ActivityScope } from '../execution/activity-scope';
import type { HeldEnd } from '../execution/llm-step.service';
import { toApplicationFailure } from './to-application-failure';

/** A step's run: its output, and its end held back (null when an earlier attempt completed it). */
export interface RanStep {
  context: StepContext;
  step: CustomLlmStep;
  ref: StepResultRef;
  end: HeldEnd | null;
}

/** How runOn runs a step (writing `before`, the end the step before held, with its start), writes an end, fails a step. */
export interface ChainStepRunner {
  run(context: StepContext, step: CustomLlmStep, scope: ActivityScope, before: HeldEnd | null): Promise<Pick<RanStep, 'ref' | 'end'>>;
  writeEnd(end: HeldEnd): Promise<unknown>;
  failStep(instanceUuid: string, message: string): Promise<void>;
}

/**
 * Runs `ahead` one after another after `first` (run with `context`), each on its row with the output of the one
 * before as its $previous_output, for about `forMs` (a step begun before it ends is finished). Each step's end is
 * written with the next one's start (one commit a step); the end of the last step it ran is handed back unwritten
 * (`held`), for the caller to write, with the run's end where that step ends the chain. A step that fails ends
 * it with its error (`failed`), for the workflow to decide as it would for the step's own activity; a cancel
 * fails the step it reached as the workflow would and is thrown, every end written.
 */
export async function runOn(
  runner: ChainStepRunner,
  first: RanStep,
  ahead: ChainStepAhead[],
  { scope, log, forMs = SHARED_ACTIVITY_MS }: { scope: ActivityScope; log: Pick<Context['log'], 'warn'>; forMs?: number },
): Promise<Pick<ChainStepsRan, 'ran_on' | 'failed'> & { held: HeldEnd | null }> {
  const until = Date.now() + forMs;
  const ranOn: StepResultRef[] = [];
  let before = first;
  for (const { step, instance_uuid } of ahead) {
    if (Date.now() >= until || scope.signal.aborted) break;
    const context = { ...first.context, instance_uuid, previous_step_uuid: before.step.uuid, previous_output_id: before.ref.output_id };
    try {
      // Its attempts count as its own activity's would: from 1 (the audit numbering on where an earlier run got to).
      const { ref, end } = await runner.run(context, step, { ...scope, attempt: 1 }, before.end);
      ranOn.push(ref);
      before = { context, step, ref, end };
    } catch (error) {
      if (scope.signal.aborted) {
        if (before.end && !before.end.written) await runner.writeEnd(before.end);
        await runner.failStep(instance_uuid, 'Cancelled while running');
        throw error;
      }
      return { ran_on: ranOn, failed: failureOf(toApplicationFailure(error, log)), held: before.end };
    }
  }
  return { ran_on: ranOn, held: before.end };
}

/** The error as the workflow would have seen it from the step's own activity. */
function failureOf(failure: unknown): ChainStepsRan['failed'] {
  if (failure instanceof ApplicationFailure)
    return { message: failure.message, type: failure.type ?? 'Error', retryable: !failure.nonRetryable };
  const error = failure instanceof Error ? failure : new Error(String(failure));
  return { message: error.message, type: error.name, retryable: true };
}
