// A chain is the simple case of a graph: each step has one ALWAYS edge to the next, the last one to END.
// Export writes a chain this way, and the run workflow walks a chain as this graph.
import type { StepDefinition } from './definition';
import type { GraphDefinition } from './graph';

/** The graph of a chain; `edgeUuid` names the edge out of a step (export names it the same each time). */
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
