// What the parts of the run workflow share: the prepared run, its step rows, the activity proxies and the
// few counters that span parts. One object, so each part (walk, agent turns, loops, human input) stays a
// module of its own.
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PreparedRun, RunActivities, RunWorkflowInput, RunWorkflowResult, StepDefinition } from '@app/contracts';
import { BOOKKEEPING_OPTIONS, localStepOptions, stepActivityOptions } from './activity-options';
import type { BudgetGate } from './budget';
import type { HumanInputInbox } from './human-input';
import { waitingOnSpend, type SpendWait } from './spend-wait';

const DEFAULT_HEARTBEAT_SECONDS = 30;

/**
 * Runs begun since short work became local activities (issue #17): a run's history before it still replays
 * with the activities it recorded. Asked first thing in the run workflow, so its marker always sits there.
 */
export const runsLocalActivities = (): boolean => patched('local-activities');

/**
 * Runs begun since an agent's rounds became local activities in chains (issue #32): a history before it
 * replays with the ordinary activities its agents recorded. Asked first thing too, after the one above.
 */
export const runsLocalAgentRounds = (): boolean => patched('local-agent-rounds');

const queuedBookkeeping = proxyActivities<RunActivities>(BOOKKEEPING_OPTIONS);
const localBookkeeping = proxyLocalActivities<RunActivities>(BOOKKEEPING_OPTIONS);

/**
 * Audit writes that are no step's own work: the run's start and end, failed steps, closing rows, edge
 * conditions: a few statements each, as local activities where `local` (see runScope) allows.
 */
export const bookkeepingOf = (local: boolean): RunActivities => (local ? localBookkeeping : queuedBookkeeping);

/**
 * Where a step's own short work runs: an LLM call, a stop checker, a loop's start and end. Local (on the
 * worker running the workflow, no task-queue round trip) unless the step asks `execution: "queued"`, for
 * calls long enough to want the Web UI's pending-activity view and heartbeats. Re-running a local activity
 * is safe: a step that committed its output returns it instead of calling the model again.
 */
function stepWorkOf(
  runsLocally: (step: StepDefinition) => boolean,
  heartbeatSeconds: number,
  spend: (activities: RunActivities) => RunActivities,
) {
  return (step: StepDefinition, label = `${step.name} (${step.type})`): RunActivities =>
    spend(
      runsLocally(step)
        ? proxyLocalActivities<RunActivities>(localStepOptions(step, label))
        : proxyActivities<RunActivities>(stepActivityOptions(step, heartbeatSeconds, label)),
    );
}

/** The walker's own tallies, shared by the parts of one workflow execution (unlike WorkflowRunCounts, not stored). */
export interface WalkCounters {
  /** Conversational runs: an agent called the end tool during the current turn. */
  endRequested: boolean;
  /** Time spent waiting for people: a graph's timeout_seconds guards the walk, not how long a person takes. */
  waitedForPeopleMs: number;
  /** Loop iterations run by this execution (continue-as-new starts a new count). */
  iterationsThisExecution: number;
  /** The run's end (completed) was recorded by the activity of its chain's last steps (chain-steps.ts). */
  completedRecorded: boolean;
}

export interface RunScope {
  input: PreparedRun;
  /** The row each step of the run has from the start. */
  instanceOf: Map<string, string>;
  inbox: HumanInputInbox;
  /** Runs started with a token budget: the check after each step. */
  budget: BudgetGate | null;
  counters: WalkCounters;
  /** The run's bookkeeping activities (bookkeepingOf). */
  bookkeeping: RunActivities;
  /** A step's activities: its retry policy, and `label` as their name in the Web UI (Temporal's activity summary). */
  activitiesFor(step: StepDefinition, label?: string): RunActivities;
  /** The same, for the step's short work (see stepWorkOf): local activities unless the step is `queued`. */
  stepWork(step: StepDefinition, label?: string): RunActivities;
  /** Whether stepWork runs the step's work as local activities. */
  runsLocally(step: StepDefinition): boolean;
  /**
   * An agent's work: its start, model turns and completion, and its tool calls where `short` (the tool is
   * among its start's local_tools). Local as stepWork is, in runs begun since agent rounds went local.
   */
  agentWork(step: StepDefinition, label?: string, short?: boolean): RunActivities;
  /** Whether agentWork runs the step's model turns as local activities. */
  localAgentTurns(step: StepDefinition): boolean;
}

/**
 * Local activities only where nothing else runs beside them: a chain walks one step at a time, a graph's
 * waves may run several. Live, the SDK resolves concurrent local activities in the order they end; on
 * replay in the order they began (temporalio/sdk-python#1578, the same core), so concurrent ones whose
 * continuations schedule more work would not replay.
 */
export function runScope(
  input: PreparedRun,
  inbox: HumanInputInbox,
  budget: BudgetGate | null = null,
  spendWait: SpendWait | null = null,
): RunScope {
  const heartbeat = input.heartbeat_timeout_seconds ?? DEFAULT_HEARTBEAT_SECONDS;
  const local = runsLocalActivities() && !input.definition.graph;
  const localAgents = runsLocalAgentRounds() && local;
  // A step's model calls refused at the user's spend limit wait in the run for the reset or a re-check (spend-wait.ts).
  const spend = (activities: RunActivities) => (spendWait ? waitingOnSpend(activities, spendWait) : activities);
  const activitiesFor = (step: StepDefinition, label = `${step.name} (${step.type})`) =>
    spend(proxyActivities<RunActivities>(stepActivityOptions(step, heartbeat, label)));
  const runsLocally = (step: StepDefinition) => local && !('execution' in step && step.execution === 'queued');
  const stepWork = stepWorkOf(runsLocally, heartbeat, spend);
  return {
    bookkeeping: bookkeepingOf(local),
    input,
    instanceOf: new Map(input.instances.map((ref) => [ref.step_uuid, ref.instance_uuid])),
    inbox,
    budget,
    counters: { endRequested: false, waitedForPeopleMs: 0, iterationsThisExecution: 0, completedRecorded: false },
    activitiesFor,
    stepWork,
    runsLocally,
    agentWork: (step, label, short = true) => (localAgents && short ? stepWork(step, label) : activitiesFor(step, label)),
    localAgentTurns: (step) => localAgents && runsLocally(step),
  };
}

/** The run workflow's signature, for continue-as-new from the modules it is built of. */
export type RunWorkflowFn = (input: RunWorkflowInput) => Promise<RunWorkflowResult>;
