// A chain is the simple case of a graph (chainAsGraph, in the contracts: the run workflow walks it too).
import type { GraphDefinition, StepDefinition } from '@app/contracts';
export { chainAsGraph } from '@app/contracts';

/**
 * The steps in chain order when `graph` is exactly a chain's graph (so importing an exported chain gives the
 * chain back), else null. A conversational graph stays a graph whatever its shape: a chain runs once.
 */
export function graphAsChain(steps: readonly StepDefinition[], graph: GraphDefinition): StepDefinition[] | null {
  // A timeout is a guard rail a chain does not have: such a graph stays a graph.
  if (graph.edges.length !== steps.length || graph.is_conversational || graph.timeout_seconds !== undefined) return null;
  const byUuid = new Map(steps.map((step) => [step.uuid, step]));
  const order: StepDefinition[] = [];
  for (let at: string | null = graph.entry_node; at !== null;) {
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
