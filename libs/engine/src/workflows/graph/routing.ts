// Where a graph run goes after a step: pure functions over the graph, shared by the run workflow and its specs.
import { END, type EdgeDefinition, type GraphDefinition } from '@app/contracts';

/** What a step's execution decided: the route it chose (router steps), and which edges' data conditions held. */
export interface StepOutcome {
  route: string | null;
  conditions_held: string[];
}

/** The edges out of `stepUuid`, highest priority first (stable for equal priorities). */
export function edgesFrom(graph: GraphDefinition, stepUuid: string): EdgeDefinition[] {
  return graph.edges
    .map((edge, order) => ({ edge, order }))
    .filter(({ edge }) => edge.source_step_uuid === stepUuid)
    .sort((a, b) => (b.edge.priority ?? 0) - (a.edge.priority ?? 0) || a.order - b.order)
    .map(({ edge }) => edge);
}

/** The choices a router step is offered: the condition values of its CONDITIONAL edges (END among them when such an edge exists). */
export function routeChoices(graph: GraphDefinition, stepUuid: string): string[] {
  const values = edgesFrom(graph, stepUuid).flatMap((edge) =>
    edge.condition_type === 'CONDITIONAL' && edge.condition_value !== null ? [edge.condition_value] : [],
  );
  return [...new Set(values)];
}

/** The edges whose data conditions the step's output must be checked against. */
export function conditionalEdges(graph: GraphDefinition, stepUuid: string): EdgeDefinition[] {
  return edgesFrom(graph, stepUuid).filter((edge) => edge.conditions && Object.keys(edge.conditions).length > 0);
}

/**
 * The steps that run next: every ALWAYS edge, the CONDITIONAL edge whose value is the chosen route, and
 * edges whose data conditions held (an edge with both a value and conditions needs both). END edges (no
 * target) fire without a step; several targets are parallel branches.
 */
export function nextTargets(graph: GraphDefinition, stepUuid: string, outcome: StepOutcome): string[] {
  const held = new Set(outcome.conditions_held);
  const route = outcome.route?.toLowerCase() ?? null;
  const fired = edgesFrom(graph, stepUuid).filter((edge) => {
    if (edge.conditions && Object.keys(edge.conditions).length > 0 && !held.has(edge.uuid)) return false;
    if (edge.condition_type === 'ALWAYS' || edge.condition_value === null) return true;
    return edge.condition_value.toLowerCase() === route;
  });
  const targets = fired.flatMap((edge) => (edge.target_step_uuid === null || edge.condition_value === END ? [] : [edge.target_step_uuid]));
  return [...new Set(targets)];
}

/**
 * The edge along which an agent hands its tool calls to a tool executor (CONDITIONAL "tool_executor" or
 * ALWAYS, to a tool_executor step), if it has one. Tool calls take it; a final answer never does.
 */
export function toolHandOffEdge(
  graph: GraphDefinition,
  stepUuid: string,
  isToolExecutor: (stepUuid: string) => boolean,
): EdgeDefinition | null {
  return edgesFrom(graph, stepUuid).find((edge) => edge.target_step_uuid !== null && isToolExecutor(edge.target_step_uuid)) ?? null;
}

/** Where a run goes after a tool executor ran `toolNames`; `to_caller` goes back to the agent that called them. */
export interface AfterTools {
  targets: string[];
  to_caller: boolean;
}

/**
 * A tool executor's three tiers: the CONDITIONAL edges whose value is the name of a tool that ran, else the one
 * ALWAYS edge, else back to the calling agent. An edge without a target ends the branch.
 */
export function afterToolCalls(graph: GraphDefinition, executorUuid: string, toolNames: string[]): AfterTools {
  const edges = edgesFrom(graph, executorUuid);
  const perTool = edges.filter(
    (edge) => edge.condition_type === 'CONDITIONAL' && edge.condition_value !== null && toolNames.includes(edge.condition_value),
  );
  const fired = perTool.length ? perTool : edges.filter((edge) => edge.condition_type === 'ALWAYS').slice(0, 1);
  if (!fired.length) return { targets: [], to_caller: true };
  return {
    targets: [...new Set(fired.flatMap((edge) => (edge.target_step_uuid === null ? [] : [edge.target_step_uuid])))],
    to_caller: false,
  };
}

/**
 * Whether a branch at `from` could still reach `to`: along the edges, and from a
 * tool executor back to the agents that hand it calls (its tier-3 route, which no edge spells out).
 */
export function canReach(graph: GraphDefinition, from: string, to: string, isToolExecutor: (stepUuid: string) => boolean): boolean {
  const seen = new Set([from]);
  for (const queue = [from]; queue.length;) {
    const at = queue.shift()!;
    const next = graph.edges.flatMap((edge) => {
      if (edge.source_step_uuid === at && edge.target_step_uuid !== null) return [edge.target_step_uuid];
      return edge.target_step_uuid === at && isToolExecutor(at) ? [edge.source_step_uuid] : [];
    });
    for (const step of next) {
      if (step === to) return true;
      if (seen.has(step)) continue;
      seen.add(step);
      queue.push(step);
    }
  }
  return false;
}
