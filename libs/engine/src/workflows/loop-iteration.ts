// One iteration of a looping step, and the continue-as-new a loop takes every iterations_per_execution
// iterations: shared by the loop one item after another (loop-step.ts) and the fan-out (loop-fan-out.ts).
import { CancellationScope, continueAsNew, isCancellation, uuid4, workflowInfo } from '@temporalio/workflow';
import {
  failureMessage,
  LOOP_ITERATIONS_PER_EXECUTION,
  type ContinuedLoop,
  type LoopingStep,
  type StepContext,
  type StepResultRef,
} from '@app/contracts';
import { runAgent } from './agent-turns';
import { runSubWorkflow } from './sub-workflow-step';
import type { RunScope, RunWorkflowFn } from './run-scope';

/**
 * What the walk carries into a new execution of the run (`{}` for a chain), or null when it cannot
 * continue as new (a graph's other branches are running, or a conversation's turn is).
 */
export type LoopCarry = (() => Partial<ContinuedLoop>) | null;

/** Where a loop stands: what its start fixed and the next iteration to run. */
export type LoopPosition = Omit<ContinuedLoop, 'step_uuid' | 'previous_step_uuid'>;

/** Whether this execution has run its share of iterations (or Temporal suggests it) and the walk lets it continue as new. */
export function continuesAsNewNow(scope: RunScope, carry: LoopCarry): boolean {
  const perExecution = scope.input.iterations_per_execution ?? LOOP_ITERATIONS_PER_EXECUTION;
  return carry !== null && (scope.counters.iterationsThisExecution >= perExecution || workflowInfo().continueAsNewSuggested);
}

/** Ends this execution; the next picks the loop up at `position.next_iteration`. */
export async function continueLoopAsNew(
  scope: RunScope,
  step: LoopingStep,
  context: StepContext,
  position: LoopPosition,
  carry: NonNullable<LoopCarry>,
): Promise<never> {
  const continued: ContinuedLoop = { ...position, step_uuid: step.uuid, previous_step_uuid: context.previous_step_uuid, ...carry() };
  return await continueAsNew<RunWorkflowFn>({ ...scope.input, continued });
}

/**
 * Iteration `index` on a row of its own; its row keeps its error if it fails (the step's row gets it from the
 * caller). `queued`: its activities ordinary ones, for iterations that run side by side (local activities
 * running at once would not replay in the order they resolved live).
 */
export async function runIteration(
  scope: RunScope,
  step: LoopingStep,
  context: StepContext,
  index: number,
  queued: boolean,
): Promise<StepResultRef> {
  // Routing is the loop's as a whole: an iteration is not asked where the run goes next.
  const { route_choices: _routing, ...shared } = context;
  const iteration = { ...shared, instance_uuid: uuid4(), execution: { parent_instance_uuid: context.instance_uuid, index } };
  const label = `${step.name}: iteration ${index + 1}`;
  // Side by side, every activity of the iteration goes through the task queue (an agent's rounds included).
  const work: RunScope = queued
    ? {
        ...scope,
        stepWork: scope.activitiesFor,
        runsLocally: () => false,
        agentWork: (of, named) => scope.activitiesFor(of, named),
        localAgentTurns: () => false,
      }
    : scope;
  try {
    if (step.type === 'sub_workflow') return await runSubWorkflow(work, step, iteration);
    if (step.type !== 'custom_llm') return await runAgent(work, step, iteration);
    return await work.stepWork(step, label).runLlmStep({ ...iteration, step });
  } catch (error) {
    const cancelled = isCancellation(error) || CancellationScope.current().consideredCancelled;
    const failIteration = () =>
      scope.bookkeeping.failStep({
        instance_uuid: iteration.instance_uuid,
        error_message: cancelled ? 'Cancelled while running' : failureMessage(error),
      });
    await (cancelled ? CancellationScope.nonCancellable(failIteration) : failIteration());
    throw error;
  }
}
