// A for_each that runs up to max_concurrency items at once, or goes on past failed items
// (on_item_failure: "continue"). Results stay in item order whatever order the items end in: each iteration
// has its index on its row, and the end activity gathers by index, the failed items' errors from their rows
// too: the workflow keeps only their number and the first, so no payload grows with them. Continue-as-new
// waits for the items in flight to end, then hands the next execution the next index (and that count).
import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import {
  failureMessage,
  isQuarantine,
  type LoopFailures,
  type LoopingStep,
  type OutputRef,
  type StepContext,
  type StepLoop,
} from '@app/contracts';
import { continueLoopAsNew, continuesAsNewNow, runIteration, type LoopCarry, type LoopPosition } from './loop-iteration';
import type { RunScope } from './run-scope';

/** The first failed item's error as the workflow keeps it (it names the step's failure when every item fails). */
const ITEM_ERROR_MAX_CHARS = 500;

/** The failures an earlier execution handed on (`failed_items` from one started before `failures`). */
function failuresSoFar(position: LoopPosition): LoopFailures {
  if (position.failures) return { ...position.failures };
  const listed = position.failed_items ?? [];
  return { count: listed.length, first: listed[0] ?? null };
}

/** Whether `loop` takes the fan-out: a for_each asking more than one item at once, or to go on past failures. */
export const fansOut = (loop: StepLoop): boolean =>
  loop.type === 'for_each' && ((loop.max_concurrency ?? 1) > 1 || loop.on_item_failure === 'continue');

export async function runFanOut(
  scope: RunScope,
  step: LoopingStep,
  context: StepContext,
  position: LoopPosition,
  carry: LoopCarry,
): Promise<OutputRef> {
  const loop = step.loop as Extract<StepLoop, { type: 'for_each' }>;
  const width = loop.max_concurrency ?? 1;
  const goesOn = loop.on_item_failure === 'continue';
  const bound = position.item_count!;
  const failures = failuresSoFar(position);
  const failed = (index: number, error: unknown) => {
    failures.count += 1;
    if (!failures.first || index < failures.first.item_index)
      failures.first = { item_index: index, error: failureMessage(error).slice(0, ITEM_ERROR_MAX_CHARS) };
  };
  // fail_fast: the first failure cancels the items in flight (each closes its row) and fails the step.
  const items = new CancellationScope();
  const inFlight = new Set<Promise<void>>();
  let stopping: unknown = null;
  let next = position.next_iteration;
  for (;;) {
    // Nothing more starts once an item failed the step, or once this execution is due to continue as new.
    while (stopping === null && next < bound && inFlight.size < width && !continuesAsNewNow(scope, carry)) {
      const index = next++;
      scope.counters.iterationsThisExecution += 1;
      const running: Promise<void> = items
        .run(() => runIteration(scope, step, context, index, width > 1))
        .then(
          () => undefined,
          (error: unknown) => {
            if (goesOn && !isCancellation(error) && !isQuarantine(error)) failed(index, error);
            else if (stopping === null) {
              stopping = error;
              items.cancel();
            }
          },
        )
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
    if (!inFlight.size) break;
    await Promise.race(inFlight);
  }
  if (stopping !== null) throw stopping;
  if (next < bound) {
    const { failed_items: _listed, ...rest } = position;
    return await continueLoopAsNew(scope, step, context, { ...rest, next_iteration: next, ...(goesOn ? { failures } : {}) }, carry!);
  }
  if (bound > 0 && failures.count === bound)
    throw ApplicationFailure.nonRetryable(
      `every item of step "${step.name}" failed; the first: ${failures.first!.error}`,
      'AllItemsFailed',
    );
  return await scope.stepWork(step, `${step.name}: end for_each`).completeLoop({
    ...context,
    step,
    iterations: next,
    stopped_by: position.truncated ? 'max_items' : 'exhausted',
  });
}
