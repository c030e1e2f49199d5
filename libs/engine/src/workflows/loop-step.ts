// A step with a loop: each iteration is the step's usual activities under an iteration row of its own (its
// uuid drawn here, so a retried activity reuses it); only indexes travel, each iteration resolves its item
// itself. Every iterations_per_execution iterations the run continues as new, when the walk allows it.
import { CancellationScope, continueAsNew, isCancellation, uuid4, workflowInfo } from '@temporalio/workflow';
import {
  failureMessage,
  LOOP_DEFAULTS,
  LOOP_ITERATIONS_PER_EXECUTION,
  type ContinuedLoop,
  type LoopingStep,
  type LoopStopReason,
  type OutputRef,
  type StepContext,
} from '@app/contracts';
import { runAgent } from './agent-turns';
import type { RunScope, RunWorkflowFn } from './run-scope';

/**
 * What the walk carries into a new execution of the run (`{}` for a chain), or null when it cannot
 * continue as new (a graph's other branches are running, or a conversation's turn is).
 */
export type LoopCarry = (() => Partial<ContinuedLoop>) | null;

/** `resume`: where an earlier execution of this run stopped inside the loop. */
export async function runLoop(
  scope: RunScope,
  step: LoopingStep,
  context: StepContext,
  resume: ContinuedLoop | null,
  carry: LoopCarry,
): Promise<OutputRef> {
  const loop = step.loop!;
  const { stepWork, counters } = scope;
  const position = resume ?? {
    ...(await stepWork(step, `${step.name}: start ${loop.type}`).startLoop({ ...context, step })),
    next_iteration: 0,
  };
  const bound = loop.type === 'for_each' ? position.item_count! : (loop.max_iters ?? LOOP_DEFAULTS.max_iters);
  let iterations = position.next_iteration;
  let stoppedBy: LoopStopReason | null = null;
  const perExecution = scope.input.iterations_per_execution ?? LOOP_ITERATIONS_PER_EXECUTION;
  while (iterations < bound && !stoppedBy) {
    if (carry && (counters.iterationsThisExecution >= perExecution || workflowInfo().continueAsNewSuggested)) {
      const continued: ContinuedLoop = {
        ...position,
        step_uuid: step.uuid,
        previous_step_uuid: context.previous_step_uuid,
        next_iteration: iterations,
        ...carry(),
      };
      await continueAsNew<RunWorkflowFn>({ ...scope.input, continued });
    }
    // Routing is the loop's as a whole: an iteration is not asked where the run goes next.
    const { route_choices: _routing, ...shared } = context;
    const iteration = { ...shared, instance_uuid: uuid4(), execution: { parent_instance_uuid: context.instance_uuid, index: iterations } };
    try {
      const result =
        step.type === 'custom_llm'
          ? await stepWork(step, `${step.name}: iteration ${iterations + 1}`).runLlmStep({ ...iteration, step })
          : await runAgent(scope, step, iteration);
      if (result.predicate_met) stoppedBy = 'predicate';
    } catch (error) {
      // The iteration's row keeps its error; the step's row gets it from the caller.
      const cancelled = isCancellation(error) || CancellationScope.current().consideredCancelled;
      const failIteration = () =>
        scope.bookkeeping.failStep({
          instance_uuid: iteration.instance_uuid,
          error_message: cancelled ? 'Cancelled while running' : failureMessage(error),
        });
      await (cancelled ? CancellationScope.nonCancellable(failIteration) : failIteration());
      throw error;
    }
    iterations += 1;
    counters.iterationsThisExecution += 1;
  }
  stoppedBy ??= loop.type === 'repeat_until' ? 'max_iters' : position.truncated ? 'max_items' : 'exhausted';
  return await stepWork(step, `${step.name}: end ${loop.type}`).completeLoop({ ...context, step, iterations, stopped_by: stoppedBy });
}
