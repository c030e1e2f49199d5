// A step with a loop: each iteration is the step's usual activities under an iteration row of its own (its
// uuid drawn here, so a retried activity reuses it); only indexes travel, each iteration resolves its item
// itself. Every iterations_per_execution iterations the run continues as new, when the walk allows it.
// A for_each with max_concurrency or on_item_failure takes the fan-out (loop-fan-out.ts) instead.
import { LOOP_DEFAULTS, type ContinuedLoop, type LoopingStep, type LoopStopReason, type OutputRef, type StepContext } from '@app/contracts';
import { fansOut, runFanOut } from './loop-fan-out';
import { continueLoopAsNew, continuesAsNewNow, runIteration, type LoopCarry } from './loop-iteration';
import type { RunScope } from './run-scope';

export type { LoopCarry } from './loop-iteration';

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
  if (fansOut(loop)) return await runFanOut(scope, step, context, position, carry);
  const bound = loop.type === 'for_each' ? position.item_count! : (loop.max_iters ?? LOOP_DEFAULTS.max_iters);
  let iterations = position.next_iteration;
  let stoppedBy: LoopStopReason | null = null;
  while (iterations < bound && !stoppedBy) {
    if (continuesAsNewNow(scope, carry)) await continueLoopAsNew(scope, step, context, { ...position, next_iteration: iterations }, carry!);
    const result = await runIteration(scope, step, context, iterations, false);
    if (result.predicate_met) stoppedBy = 'predicate';
    iterations += 1;
    counters.iterationsThisExecution += 1;
  }
  stoppedBy ??= loop.type === 'repeat_until' ? 'max_iters' : position.truncated ? 'max_items' : 'exhausted';
  return await stepWork(step, `${step.name}: end ${loop.type}`).completeLoop({ ...context, step, iterations, stopped_by: stoppedBy });
}
