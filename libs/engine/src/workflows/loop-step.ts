// A step with a loop: each iteration is the step's usual activities under an iteration row of its own (its
// uuid drawn here, so a retried activity reuses it); only indexes travel, each iteration resolves its item
// itself. A chain's loop continues the run as new every CONTINUE_AS_NEW_EVERY iterations.
import { CancellationScope, continueAsNew, isCancellation, uuid4, workflowInfo } from '@temporalio/workflow';
import { LOOP_DEFAULTS, type ContinuedLoop, type LoopingStep, type LoopStopReason, type OutputRef, type StepContext } from '@app/contracts';
import { runAgent } from './agent-turns';
import { bookkeeping, failureMessage, type RunScope, type RunWorkflowFn } from './run-scope';

/**
 * Loop iterations one execution runs before it continues as new (sooner if Temporal suggests it), so a
 * loop of thousands keeps each history to a few thousand events.
 */
export const CONTINUE_AS_NEW_EVERY = 500;

/**
 * `resume`: where an earlier execution of this run stopped inside the loop. `mayContinueAsNew`: false in a
 * graph walk, whose other branches and counters a new execution would not carry.
 */
export async function runLoop(scope: RunScope, step: LoopingStep, context: StepContext, resume: ContinuedLoop | null, mayContinueAsNew: boolean): Promise<OutputRef> {
  const loop = step.loop!;
  const { activitiesFor, counters } = scope;
  const position = resume ?? { ...(await activitiesFor(step, `${step.name}: start ${loop.type}`).startLoop({ ...context, step })), next_iteration: 0 };
  const bound = loop.type === 'for_each' ? position.item_count! : (loop.max_iters ?? LOOP_DEFAULTS.max_iters);
  let iterations = position.next_iteration;
  let stoppedBy: LoopStopReason | null = null;
  while (iterations < bound && !stoppedBy) {
    if (mayContinueAsNew && (counters.iterationsThisExecution >= CONTINUE_AS_NEW_EVERY || workflowInfo().continueAsNewSuggested)) {
      const continued: ContinuedLoop = { ...position, step_uuid: step.uuid, previous_step_uuid: context.previous_step_uuid, next_iteration: iterations };
      await continueAsNew<RunWorkflowFn>({ ...scope.input, continued });
    }
    // Routing is the loop's as a whole: an iteration is not asked where the run goes next.
    const { route_choices: _routing, ...shared } = context;
    const iteration = { ...shared, instance_uuid: uuid4(), iteration: { parent_instance_uuid: context.instance_uuid, index: iterations } };
    try {
      const activities = activitiesFor(step, `${step.name}: iteration ${iterations + 1}`);
      const result = step.type === 'custom_llm' ? await activities.runLlmStep({ ...iteration, step }) : await runAgent(scope, step, iteration);
      if (result.predicate_met) stoppedBy = 'predicate';
    } catch (error) {
      // The iteration's row keeps its error; the step's row gets it from the caller.
      const cancelled = isCancellation(error) || CancellationScope.current().consideredCancelled;
      const failIteration = () => bookkeeping.failStep({ instance_uuid: iteration.instance_uuid, error_message: cancelled ? 'Cancelled while running' : failureMessage(error) });
      await (cancelled ? CancellationScope.nonCancellable(failIteration) : failIteration());
      throw error;
    }
    iterations += 1;
    counters.iterationsThisExecution += 1;
  }
  stoppedBy ??= loop.type === 'repeat_until' ? 'max_iters' : position.truncated ? 'max_items' : 'exhausted';
  return await activitiesFor(step, `${step.name}: end ${loop.type}`).completeLoop({ ...context, step, iterations, stopped_by: stoppedBy });
}
