import type { StepDefinition, WorkflowDefinition } from '@app/contracts';

/**
 * The one place that chooses what runs next. A chain runs its steps in order; graph workflows will
 * replace this walk without touching the step executors.
 */
export function nextStep(definition: WorkflowDefinition, after: string | null): StepDefinition | null {
  if (after === null) return definition.steps[0] ?? null;
  const index = definition.steps.findIndex((step) => step.uuid === after);
  return definition.steps[index + 1] ?? null;
}
