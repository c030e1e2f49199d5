// Graph workflows: steps are nodes, edges say what runs next. A workflow without a
// graph is the ordered chain of its steps; a chain is the graph of ALWAYS edges from each step to the next.
import type { JsonObject } from './json';

export const EDGE_CONDITION_TYPES = ['ALWAYS', 'CONDITIONAL'] as const;
export type EdgeConditionType = (typeof EDGE_CONDITION_TYPES)[number];

/** The condition value of an edge that ends the run (its target is null). */
export const END = 'END';

export const DEFAULT_MAX_STEPS = 15;
/** A guard rail: a graph run's walk fails after this long unless the graph says otherwise. */
export const DEFAULT_GRAPH_TIMEOUT_SECONDS = 3600;

export interface EdgeDefinition {
  uuid: string;
  source_step_uuid: string;
  /** null: the edge ends the run (END). */
  target_step_uuid: string | null;
  condition_type: EdgeConditionType;
  /**
   * CONDITIONAL edges: the choice that takes this edge, for an agent the value it picks (a step name or
   * END), after a tool executor the name of the tool that ran. null for ALWAYS edges.
   */
  condition_value: string | null;
  /** Data conditions on the source step's output, in the filter-rule language (all/any, path, operator, value). */
  conditions?: JsonObject | null;
  /** Higher first when several edges fire at once. */
  priority?: number | null;
}

export interface GraphDefinition {
  /** The step a run starts with. */
  entry_node: string;
  edges: EdgeDefinition[];
  /** Guard rail: step executions a run may make before it fails (default 15). */
  max_steps?: number;
  /** Guard rail: seconds a run's walk may take before it fails (default DEFAULT_GRAPH_TIMEOUT_SECONDS), waits for people not counted. */
  timeout_seconds?: number;
  /** A human_input step of the graph: a run that hits a guard rail waits there for a person instead of failing. */
  human_handoff_step_uuid?: string;
  /** A run is a conversation that stays open between user messages (POST /runs/{uuid}/messages), each a turn from entry_node to END. */
  is_conversational?: boolean;
  /** Conversational runs: seconds without a message before the conversation closes (default DEFAULT_IDLE_TIMEOUT_SECONDS). */
  idle_timeout_seconds?: number;
}
