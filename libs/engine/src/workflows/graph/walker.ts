// The one walk every run takes. A graph run walks its edges; a chain walks the graph of ALWAYS edges from
// each step to the next (chainAsGraph), so the same code runs both: only where a step's execution is
// recorded and which guard rails apply differ, and the plan says which. Its parts live beside it: the
// walk's state, one activation's execution, each step type's run, the guard rails.
import { execute } from './execution';
import { canReach } from './routing';
import { checkTimeout, handToPerson } from './guard-rails';
import { problemOf, type Activation, type WalkOutcome, type WalkPlan } from './walk-plan';
import { beginWalk, carryOver, outcomeOf, walkState, type WalkState } from './walk-state';
import type { RunScope } from '../run-scope';

/**
 * The walk goes in waves: the steps activated run in parallel, then the edges out of each completed one
 * activate the next wave. A failed step ends its branch (its error on its row) while the others go on;
 * `maxSteps` executions in all is the guard rail. A conversational run walks once per turn: the tally spans
 * the run, the guard rails a walk.
 */
export function graphWalker(scope: RunScope, plan: WalkPlan, executions: Map<string, number>) {
  const state = walkState(scope, plan, executions);
  return { walk: (start: Activation, turn?: number) => walk(state, start, turn), tally: state.tally, problemOf };
}

/** Walks from `start` until every branch has ended; `turn` for a conversation's turn. */
async function walk(state: WalkState, start: Activation, turn: number | undefined): Promise<WalkOutcome> {
  beginWalk(state, turn);
  if (start.loop?.walk) carryOver(state, start.loop.walk);
  for (let wave: Activation[] = [start]; wave.length && !state.stopped;) {
    const activated = await runWave(state, wave);
    if (state.quarantined) break;
    wave = joined(state, distinct(activated));
    checkTimeout(state, wave.length > 0);
    if (!state.guard) continue;
    if (!state.plan.humanHandoff) break;
    // A guard rail tripped and the graph has a human hand-off step: a person decides instead of the run failing.
    wave = handToPerson(state, state.plan.humanHandoff);
  }
  return outcomeOf(state);
}

/** Runs a wave's branches to their ends; a cancellation (or continue-as-new) goes on once every branch has closed its row. */
async function runWave(state: WalkState, wave: Activation[]): Promise<Activation[]> {
  state.waveSize = wave.length;
  const settled = await Promise.allSettled(wave.map((activation) => execute(state, activation)));
  const thrown = settled.find((result) => result.status === 'rejected');
  if (thrown) throw thrown.reason;
  return settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
}

/**
 * `join: "all"`: an activation of such a step waits (the latest one kept, its $previous_output the last
 * branch to arrive) while another activation could still reach the step, and joins the first wave nothing
 * running can reach it from. Steps waiting on each other go together rather than never.
 */
function joined(state: WalkState, activated: Activation[]): Activation[] {
  const { plan, byUuid, joining } = state;
  if (!plan.joinsAll.size) return activated;
  const candidates = distinct([...joining.values(), ...activated]);
  joining.clear();
  const isToolExecutor = (stepUuid: string) => byUuid.get(stepUuid)?.type === 'tool_executor';
  const waits = (activation: Activation) =>
    plan.joinsAll.has(activation.step_uuid) &&
    candidates.some(
      (other) => other.step_uuid !== activation.step_uuid && canReach(plan.graph, other.step_uuid, activation.step_uuid, isToolExecutor),
    );
  const ready = candidates.filter((activation) => !waits(activation));
  if (!ready.length) return candidates;
  for (const activation of candidates) if (!ready.includes(activation)) joining.set(activation.step_uuid, activation);
  return ready;
}

/** Two edges into one step activate it once; a tool executor runs once per agent that handed it calls. */
function distinct(activated: Activation[]): Activation[] {
  const keyOf = ({ step_uuid, handoff }: Activation) => (handoff ? `${step_uuid}/${handoff.conversation.instance_uuid}` : step_uuid);
  return [...new Map(activated.map((activation) => [keyOf(activation), activation])).values()];
}
