import type { PreparedRun, WorkflowDefinition } from '@app/contracts';
import type { NewRun, RunWithSteps } from '@app/persistence';

/** What every new run records about who started it and what it runs, however it starts (a start, a resume). */
export function runIdentity(request: { runUuid: string; userId: string; temporalWorkflowId: string }, definition: WorkflowDefinition): Pick<NewRun, 'uuid' | 'user_id' | 'workflow_uuid' | 'workflow_name' | 'definition' | 'temporal_workflow_id'> {
  return {
    uuid: request.runUuid,
    user_id: request.userId,
    workflow_uuid: definition.uuid,
    workflow_name: definition.name,
    definition,
    temporal_workflow_id: request.temporalWorkflowId,
  };
}

/** The workflow input of a run already recorded: what a repeated start (same key, retried activity) hands to Temporal. */
export function preparedRunOf(run: RunWithSteps): PreparedRun {
  const carried = run.steps.filter((step) => step.carried_from_run_uuid);
  const previous = [...carried].reverse().find((step) => step.output_id);
  return {
    run_uuid: run.uuid,
    user_id: run.user_id,
    definition: run.definition as WorkflowDefinition,
    instances: run.steps.map((step) => ({ step_uuid: step.step_definition_uuid, instance_uuid: step.uuid })),
    ...(run.dry_run ? { dry_run: true as const } : {}),
    ...(run.budget ? { budget: { max_tokens: run.budget.max_tokens } } : {}),
    ...(run.resumed_from_step_uuid
      ? { resume: { from_step_uuid: run.resumed_from_step_uuid, previous_step_uuid: previous?.step_definition_uuid ?? null } }
      : {}),
  };
}
