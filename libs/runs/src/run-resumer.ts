import { randomUUID } from 'node:crypto';
import { isInFlight, type PreparedRun, type WorkflowDefinition } from '@app/contracts';
import { assertAcceptsRuns, DomainError, ErrorCode, notFound, planResume } from '@app/domain';
import { definitionOf, type RunRepository, type WorkflowRepository } from '@app/persistence';
import { preparedRunOf, runIdentity } from './run-preparer';

export interface ResumeRequest {
  userId: string;
  parentRunUuid: string;
  /** Default: the parent's failed step. */
  fromStepUuid?: string;
  /** The definition the parent ran (`original`) or the workflow's definition now (`current`). */
  definition: 'original' | 'current';
  runUuid: string;
  temporalWorkflowId: string;
}

/**
 * A resumed run: a new run linked to its parent that starts at a step. The steps before it are recorded
 * as completed, carried over: they reference the parent's outputs and are never run again.
 */
export class RunResumer {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
  ) {}

  async prepare(request: ResumeRequest): Promise<{ created: boolean; run: PreparedRun }> {
    const parent = await this.runs.find(request.userId, request.parentRunUuid);
    if (!parent) throw notFound('Run', request.parentRunUuid);
    if (isInFlight(parent.status)) {
      throw new DomainError(ErrorCode.RunStillRunning, 'The run is still running: cancel it or wait for it to end before resuming it', {
        status: parent.status,
      });
    }
    const record = await this.workflows.find(request.userId, parent.workflow_uuid);
    if (!record) throw notFound('Workflow', parent.workflow_uuid);
    const current = definitionOf(record);
    // A resume is asked for by hand: the workflow as it is now must take a run.
    assertAcceptsRuns(current, 'manual');
    const definition = request.definition === 'current' ? current : (parent.definition as WorkflowDefinition);
    const plan = planResume(definition, parent.steps, request.fromStepUuid);

    const carried = new Map(plan.carried.map((step) => [step.step_uuid, step]));
    const finishedAt = new Map(parent.steps.map((step) => [step.step_definition_uuid, step.finished_at]));
    const created = await this.runs.create({
      ...runIdentity(request, definition),
      workflow_version: request.definition === 'current' ? record.version : parent.workflow_version,
      schedule_id: null,
      trigger_output: { carried_output_id: parent.trigger_output_id },
      resume: { parent_run_uuid: parent.uuid, from_step_uuid: plan.from_step_uuid },
      // A dry run resumes as one: its carried outputs are made up.
      dry_run: parent.dry_run,
      steps: definition.steps.map((step) => {
        const kept = carried.get(step.uuid);
        return {
          uuid: randomUUID(),
          step_definition_uuid: step.uuid,
          step_name: step.name,
          step_type: step.type,
          ...(kept
            ? { carried: { output_id: kept.output_id, from_run_uuid: parent.uuid, finished_at: finishedAt.get(step.uuid) ?? null } }
            : {}),
        };
      }),
    });
    const run = await this.runs.find(request.userId, request.runUuid);
    if (!run) throw new DomainError(ErrorCode.Conflict, `Run ${request.runUuid} belongs to someone else`, { field: 'run_uuid' });
    // The plan knows which carried step feeds the start (in a graph, the one with an edge into it); the stored
    // rows alone only know the order of the steps.
    const prepared = preparedRunOf(run);
    const fromPlan = prepared.resume?.from_step_uuid === plan.from_step_uuid;
    return {
      created,
      run: fromPlan
        ? { ...prepared, resume: { from_step_uuid: plan.from_step_uuid, previous_step_uuid: plan.previous_step_uuid } }
        : prepared,
    };
  }
}
