// A chain is the simple case of a graph: each step has one ALWAYS edge to the next, the last one to END.
import type { GraphDefinition, StepDefinition } from '@app/contracts';

/** The graph of a chain, as export writes it; `edgeUuid` names the edge out of a step (export names it the same each time). */
export function chainAsGraph(steps: readonly StepDefinition[], edgeUuid: (sourceStepUuid: string) => string): GraphDefinition | null {
  if (!steps.length) return null;
  return {
    entry_node: steps[0].uuid,
    edges: steps.map((step, i) => ({
      uuid: edgeUuid(step.uuid),
      source_step_uuid: step.uuid,
      target_step_uuid: steps[i + 1]?.uuid ?? null,
      condition_type: 'ALWAYS' as const,
      condition_value: null,
    })),
  };
}

/**
 * The steps in chain order when `graph` is exactly a chain's graph (so importing an exported chain gives the
 * chain back), else null. A conversational graph stays a graph whatever its shape: a chain runs once.
 */
export function graphAsChain(steps: readonly StepDefinition[], graph: GraphDefinition): StepDefinition[] | null {
  if (graph.edges.length !== steps.length || graph.is_conversational) return null;
  const byUuid = new Map(steps.map((step) => [step.uuid, step]));
  const order: StepDefinition[] = [];
  for (let at: string | null = graph.entry_node; at !== null; ) {
    const step = byUuid.get(at);
    const out = graph.edges.filter((edge) => edge.source_step_uuid === at);
    if (!step || order.includes(step) || out.length !== 1) return null;
    const [edge] = out;
    if (edge.condition_type !== 'ALWAYS' || edge.conditions || edge.condition_value !== null) return null;
    order.push(step);
    at = edge.target_step_uuid;
  }
  return order.length === steps.length ? order : null;
}
