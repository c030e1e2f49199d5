// What a walk is told before it starts (its plan), what moves it along (activations) and what it ends with.
import {
  chainAsGraph,
  DEFAULT_GRAPH_TIMEOUT_SECONDS,
  DEFAULT_MAX_STEPS,
  type ContinuedLoop,
  type GuardRailHit,
  type TranscriptRef,
  type GraphDefinition,
  type ToolHandoff,
  type WorkflowDefinition,
} from '@app/contracts';

/** How a definition is walked. */
export interface WalkPlan {
  graph: GraphDefinition;
  /**
   * Graph runs record each execution of a step in a row of its own under the step's row (steps in a cycle
   * run many times); a chain runs each step once, on the step's row.
   */
  rowPerExecution: boolean;
  maxSteps: number;
  timeoutSeconds: number;
  humanHandoff: string | null;
  /** Steps with `join: "all"`: an activation waits while another branch could still reach them. */
  joinsAll: Set<string>;
}

export function walkPlan(definition: WorkflowDefinition): WalkPlan {
  const { graph } = definition;
  // A chain cannot cycle: its guard rails are its length.
  if (!graph)
    return {
      graph: chainAsGraph(definition.steps, (uuid) => uuid)!,
      rowPerExecution: false,
      maxSteps: Infinity,
      timeoutSeconds: Infinity,
      humanHandoff: null,
      joinsAll: new Set(),
    };
  return {
    graph,
    rowPerExecution: true,
    maxSteps: graph.max_steps ?? DEFAULT_MAX_STEPS,
    timeoutSeconds: graph.timeout_seconds ?? DEFAULT_GRAPH_TIMEOUT_SECONDS,
    humanHandoff: graph.human_handoff_step_uuid ?? null,
    joinsAll: new Set(definition.steps.filter((step) => step.join === 'all').map((step) => step.uuid)),
  };
}

/**
 * An activation of a step: which step, and the step whose output is its $previous_output; for a tool
 * executor the calls handed to it, for an agent back from one the transcript it goes on with; `reason` (the
 * guard's message) and `guard_rail` when a guard rail hands the run to the human hand-off step; `loop` where a continued execution picks a
 * loop up.
 */
export interface Activation {
  step_uuid: string;
  previous_step_uuid: string | null;
  /** The output of `previous_step_uuid` that activated it, when it completed with one. */
  previous_output_id?: string;
  handoff?: ToolHandoff;
  continues?: TranscriptRef;
  reason?: string;
  guard_rail?: GuardRailHit;
  loop?: ContinuedLoop;
}

/** A guard rail that ended a walk: its message for people, `type` the failure's code, `rail` what it was as data. */
export interface GuardHit {
  type: 'MaxStepsReached' | 'TimeoutReached' | 'RepeatedInput';
  message: string;
  rail: GuardRailHit;
}

/** How one walk ended; the last output is a conversational turn's reply. */
export interface WalkOutcome {
  stopped: string | null;
  /** A call of the walk was refused after killing its workers (RUN_QUARANTINED): the run ends failed. */
  quarantined: boolean;
  guard: GuardHit | null;
  failures: string[];
  last_output_id: string | null;
}

/** What went wrong in a walk, null when it ended cleanly (or was stopped). */
export const problemOf = (outcome: WalkOutcome): string | null =>
  outcome.guard?.message ?? (outcome.failures.length ? outcome.failures.join('; ') : null);
