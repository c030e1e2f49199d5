// The one object a walker's steps share, instead of a closure's variables: what spans the run (the tally),
// what one walk finds (failures, a stop, a guard rail, the last output) and where its guard rails count from.
import { patched } from '@temporalio/workflow';
import type { ContinuedWalk, StepContext, StepDefinition } from '@app/contracts';
import type { LoopCarry } from '../loop-step';
import { newInputTracker, type NewInputTracker } from '../new-input';
import type { StepTally } from '../run-end';
import type { RunScope } from '../run-scope';
import type { RanAhead } from './chain-steps';
import type { Activation, GuardHit, WalkOutcome, WalkPlan } from './walk-plan';

export interface WalkState {
  scope: RunScope;
  plan: WalkPlan;
  byUuid: Map<string, StepDefinition>;
  /** Spans the run: a conversation walks once per turn. */
  tally: StepTally;
  news: NewInputTracker;
  /** The conversation's turn the walk answers, if any. */
  turn: number | undefined;
  /** Activations of the wave running now: a loop continues the run as new only as the walk's one branch. */
  waveSize: number;
  /** Activations of `join: "all"` steps waiting for the branches that can still reach them, by step. */
  joining: Map<string, Activation>;
  failures: string[];
  stopped: string | null;
  /** A step failed with RUN_QUARANTINED: the walk starts nothing more, and the run ends failed. */
  quarantined: boolean;
  guard: GuardHit | null;
  lastOutput: string | null;
  /** A chain's LLM steps that ran on in the activity of a step before them (chain-steps.ts), by step. */
  ranAhead: Map<string, RanAhead>;
  /** Where the guard rails count from: the walk's start, or the last hand-off to a person. */
  budgetFrom: number;
  clockFrom: number;
}

export function walkState(scope: RunScope, plan: WalkPlan, executions: Map<string, number>): WalkState {
  return {
    scope,
    plan,
    byUuid: new Map(scope.input.definition.steps.map((step) => [step.uuid, step])),
    tally: { executions, failed: new Set<string>() },
    // Patched only where a step ran beside others that changed their outputs: other histories stay as recorded.
    news: newInputTracker(() => patched('new-input-seen-at-start')),
    turn: undefined,
    waveSize: 0,
    joining: new Map(),
    failures: [],
    stopped: null,
    quarantined: false,
    guard: null,
    lastOutput: null,
    ranAhead: new Map(),
    budgetFrom: 0,
    clockFrom: Date.now(),
  };
}

export const executionCount = ({ tally }: WalkState): number => [...tally.executions.values()].reduce((sum, n) => sum + n, 0);

/** At a walk's start, and once a person has decided after a guard rail. */
export function restartGuardRails(state: WalkState): void {
  state.budgetFrom = executionCount(state);
  state.clockFrom = Date.now();
  state.scope.counters.waitedForPeopleMs = 0;
  state.news.forget();
}

/** Forgets what the last walk found; `turn` for a conversation's turn. */
export function beginWalk(state: WalkState, turn: number | undefined): void {
  state.turn = turn;
  state.joining.clear();
  state.failures = [];
  state.stopped = null;
  state.quarantined = false;
  state.guard = null;
  state.lastOutput = null;
  state.ranAhead.clear();
  restartGuardRails(state);
}

/** Takes up where an earlier execution of the run left the walk (a loop that continued as new). */
export function carryOver(state: WalkState, walked: ContinuedWalk): void {
  for (const [stepUuid, count] of Object.entries(walked.executions)) state.tally.executions.set(stepUuid, count);
  for (const stepUuid of walked.failed) state.tally.failed.add(stepUuid);
  state.failures = [...walked.failures];
  state.budgetFrom = executionCount(state) - walked.steps_counted;
  state.clockFrom = Date.now() - walked.walked_ms;
}

/** What a graph walk carries into the execution that continues a loop of `context`'s execution. */
export function loopCarry(state: WalkState, context: StepContext): LoopCarry {
  if (!state.plan.rowPerExecution) return () => ({});
  if (state.waveSize !== 1 || state.joining.size || state.turn !== undefined) return null;
  // Read when the loop continues as new, not now.
  return () => ({
    walk: {
      instance_uuid: context.instance_uuid,
      index: context.execution!.index,
      executions: Object.fromEntries(state.tally.executions),
      failed: [...state.tally.failed],
      failures: state.failures,
      steps_counted: executionCount(state) - state.budgetFrom,
      walked_ms: Date.now() - state.clockFrom - state.scope.counters.waitedForPeopleMs,
    },
  });
}

export const outcomeOf = (state: WalkState): WalkOutcome => ({
  stopped: state.stopped,
  quarantined: state.quarantined,
  guard: state.guard,
  failures: state.failures,
  last_output_id: state.lastOutput,
});
