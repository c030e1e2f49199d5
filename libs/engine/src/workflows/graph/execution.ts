// One activation of a step, end to end: the guard rails, its execution row, the step's run, then the edges
// its output takes (or its failure recorded, while the other branches go on).
import { CancellationScope, ContinueAsNew, isCancellation, uuid4 } from '@temporalio/workflow';
import {
  failureMessage,
  isQuarantine,
  type EdgeDefinition,
  type StepResultRef,
  type StepContext,
  type StepDefinition,
} from '@app/contracts';
import { conditionalEdges, nextTargets, routeChoices, toolHandOffEdge } from './routing';
import { withinGuardRails } from './guard-rails';
import { runStep } from './step-runs';
import type { Activation } from './walk-plan';
import type { WalkState } from './walk-state';

/** Runs `activation` unless a guard rail refuses it, and returns the activations it leads to. */
export async function execute(state: WalkState, activation: Activation): Promise<Activation[]> {
  const step = state.byUuid.get(activation.step_uuid)!;
  // A loop an earlier execution of the run continued as new: same execution row, already counted.
  const resumed = activation.loop?.walk;
  if (resumed) return await executeAs(state, step, activation, resumed.index, resumed.instance_uuid);
  const execution = begin(state, step, activation);
  if (!execution) return [];
  return await executeAs(state, step, activation, execution.index, execution.instanceUuid);
}

/** Counts an execution of `step` unless a guard rail refuses it: its index and its row. */
function begin(state: WalkState, step: StepDefinition, activation: Activation): { index: number; instanceUuid: string } | null {
  if (!withinGuardRails(state, step, activation)) return null;
  const { executions } = state.tally;
  const index = executions.get(step.uuid) ?? 0;
  executions.set(step.uuid, index + 1);
  state.news.starts(step.uuid);
  return { index, instanceUuid: state.plan.rowPerExecution ? uuid4() : state.scope.instanceOf.get(step.uuid)! };
}

/**
 * The activations after `next`, taking in on the way the executions of a chain's steps that ran ahead in the
 * activity of a step before them (chain-steps.ts): each counted, seen and routed as execute would, with no
 * activity and no await (a chain has no budget between them, no conditions on its edges, no parallel branch).
 */
function takenAhead(state: WalkState, next: Activation[]): Activation[] {
  for (;;) {
    const [activation, ...more] = next;
    const ahead = activation && !more.length ? state.ranAhead.get(activation.step_uuid) : undefined;
    if (!ahead || !('ref' in ahead) || ahead.after !== activation.previous_output_id) return next;
    state.ranAhead.delete(activation.step_uuid);
    const step = state.byUuid.get(activation.step_uuid)!;
    if (!begin(state, step, activation)) return [];
    outputSeen(state, step, ahead.ref);
    next = edgesTaken(state, step, ahead.ref, [], null);
  }
}

/** Runs execution `index` of `step` on row `instanceUuid`, and returns the activations it leads to. */
async function executeAs(
  state: WalkState,
  step: StepDefinition,
  activation: Activation,
  index: number,
  instanceUuid: string,
): Promise<Activation[]> {
  const { scope, plan } = state;
  const { input } = scope;
  const executorEdge = toolExecutorEdgeOf(state, step);
  const context = stepContext(state, step, activation, index, instanceUuid, executorEdge);
  try {
    const ran = await runStep(
      state,
      step,
      context,
      activation,
      executorEdge,
      plan.rowPerExecution ? `${step.name}: run ${index + 1}` : undefined,
    );
    if (Array.isArray(ran)) return ran;
    // A run with a token budget waits here for an approval once its model calls reach it.
    await scope.budget?.check(input.run_uuid, scope.bookkeeping);
    outputSeen(state, step, ran);
    const withConditions = conditionalEdges(plan.graph, step.uuid).map((edge) => ({ uuid: edge.uuid, conditions: edge.conditions! }));
    if (!withConditions.length) return takenAhead(state, edgesTaken(state, step, ran, [], executorEdge));
    const held = await scope.bookkeeping.evaluateEdgeConditions({
      user_id: input.user_id,
      output_id: ran.output_id,
      edges: withConditions,
    });
    return edgesTaken(state, step, ran, held, executorEdge);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error) || CancellationScope.current().consideredCancelled) {
      await CancellationScope.nonCancellable(() =>
        scope.bookkeeping.failStep({ instance_uuid: context.instance_uuid, error_message: 'Cancelled while running' }),
      );
      throw error;
    }
    // A failed step: the error stays on the step's execution, and the other branches go on; but a call that
    // killed its workers stops the whole run (the walk starts nothing after this wave).
    state.tally.failed.add(step.uuid);
    state.failures.push(`Step "${step.name}" failed: ${failureMessage(error)}`);
    if (isQuarantine(error)) state.quarantined = true;
    await scope.bookkeeping.failStep({ instance_uuid: context.instance_uuid, error_message: failureMessage(error) });
    return [];
  }
}

/** The step's output is the walk's latest, and new input for the repeated-input guard. */
function outputSeen(state: WalkState, step: StepDefinition, ran: StepResultRef): void {
  state.lastOutput = ran.output_id;
  state.news.outputOf(step.uuid, ran.digest);
}

/** Tool calls alone take an agent to its tool executor: its final answer chooses among the other routes. */
function toolExecutorEdgeOf({ plan, byUuid }: WalkState, step: StepDefinition): EdgeDefinition | null {
  return step.type === 'custom_agent'
    ? toolHandOffEdge(plan.graph, step.uuid, (stepUuid) => byUuid.get(stepUuid)?.type === 'tool_executor')
    : null;
}

function stepContext(
  { scope, plan, turn }: WalkState,
  step: StepDefinition,
  activation: Activation,
  index: number,
  instanceUuid: string,
  executorEdge: EdgeDefinition | null,
): StepContext {
  const { input, instanceOf } = scope;
  const choices = routeChoices(plan.graph, step.uuid).filter((choice) => choice !== executorEdge?.condition_value);
  return {
    run_uuid: input.run_uuid,
    user_id: input.user_id,
    instance_uuid: instanceUuid,
    previous_step_uuid: activation.previous_step_uuid,
    ...(activation.previous_output_id ? { previous_output_id: activation.previous_output_id } : {}),
    ...(plan.rowPerExecution ? { execution: { parent_instance_uuid: instanceOf.get(step.uuid)!, index } } : {}),
    ...(choices.length ? { route_choices: choices } : {}),
    ...(input.definition.output_history_size ? { output_history_size: input.definition.output_history_size } : {}),
    ...(turn !== undefined ? { conversation_turn: turn } : {}),
    ...(input.dry_run ? { dry_run: true as const } : {}),
    ...(input.replay ? { replay: input.replay } : {}),
  };
}

/** The edges `step`'s output takes (its route, the conditions that held), but not its tool hand-off. */
function edgesTaken(
  { plan }: WalkState,
  step: StepDefinition,
  ran: StepResultRef,
  held: string[],
  executorEdge: EdgeDefinition | null,
): Activation[] {
  return nextTargets(plan.graph, step.uuid, { route: ran.route ?? null, conditions_held: held })
    .filter((target) => target !== executorEdge?.target_step_uuid)
    .map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid, previous_output_id: ran.output_id }));
}
