// The activity side of sub_workflow steps: the child run recorded (the definition its parent pinned, its
// input resolved from placeholders and checked against the child's input_schema), then, once the child
// ended, its final output referenced as the step's (not copied), or its failure as the step's.
import { Injectable } from '@nestjs/common';
import {
  runWorkflowId,
  type PreparedRun,
  type StepContext,
  type StepResultRef,
  type SubWorkflowStep,
  type WorkflowDefinition,
} from '@app/contracts';
import { AppConfig } from '@app/config';
import { jsonSchemaErrors } from '@app/domain';
import { definitionOf, OutputRepository, RunRepository, StepRepository, WorkflowRepository } from '@app/persistence';
import { RunPreparer } from '@app/runs';
import { StepError } from './step-error';
import { StepInputService } from './step-input.service';
import { completedOutput, refOf } from './step-output';

@Injectable()
export class SubWorkflowService {
  constructor(
    private readonly runs: RunRepository,
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly workflows: WorkflowRepository,
    private readonly inputs: StepInputService,
    private readonly preparer: RunPreparer,
    private readonly config: AppConfig,
  ) {}

  /** Records child run `childRunUuid` (once: a retried activity finds it) and marks the step running. */
  async start(context: StepContext, step: SubWorkflowStep, childRunUuid: string, depth: number): Promise<PreparedRun> {
    const maxDepth = this.config.composition.subWorkflowMaxDepth;
    if (depth > maxDepth)
      throw new StepError(
        'SubWorkflowTooDeep',
        `step "${step.name}" would nest sub-workflows ${depth} deep, more than ${maxDepth} (SUB_WORKFLOW_MAX_DEPTH)`,
      );
    const parent = await this.runs.findRun(context.user_id, context.run_uuid);
    const pins = (parent?.definition as WorkflowDefinition | undefined)?.sub_workflows ?? {};
    const child = pins[step.workflow_uuid] ?? (await this.current(context.user_id, step));
    const input = await this.inputs.value(context, step.input, step.loop);
    const errors = child.input_schema ? jsonSchemaErrors(child.input_schema, input) : [];
    if (errors.length)
      throw new StepError(
        'SubWorkflowInputInvalid',
        `step "${step.name}": the input does not follow "${child.name}"'s input_schema: ${errors.join('; ')}`,
      );
    await this.steps.startStep(context.instance_uuid, { workflow_uuid: step.workflow_uuid, child_run_uuid: childRunUuid, input });
    const prepared = await this.preparer.prepareChild(
      {
        userId: context.user_id,
        workflowUuid: child.uuid,
        triggerOutput: input,
        runUuid: childRunUuid,
        temporalWorkflowId: runWorkflowId(childRunUuid),
        ...(parent?.dry_run ? { dryRun: true } : {}),
      },
      { ...child, sub_workflows: pins },
      { run_uuid: context.run_uuid, step_uuid: step.uuid },
    );
    return { ...prepared.run, depth, ...(context.dry_run ? { dry_run: true as const } : {}) };
  }

  /** The child's final output (the last step's that has one) as the step's; a child that did not complete fails the step. */
  async complete(context: StepContext, step: SubWorkflowStep, childRunUuid: string): Promise<StepResultRef> {
    // A retry after the commit (its answer lost on the way to Temporal) finds the step completed.
    const done = await completedOutput(this.steps, this.outputs, context);
    if (done) return done;
    const child = await this.runs.find(context.user_id, childRunUuid);
    if (!child) throw new StepError('SubWorkflowMissing', `step "${step.name}": its run ${childRunUuid} is not recorded`);
    if (child.status !== 'completed' && child.status !== 'stopped')
      throw new StepError(
        'SubWorkflowFailed',
        `sub-workflow run ${childRunUuid} ended ${child.status}: ${child.error_message ?? 'no error recorded'}`,
      );
    const last = [...child.steps].reverse().find((row) => row.output);
    if (!last?.output) throw new StepError('SubWorkflowNoOutput', `sub-workflow run ${childRunUuid} ended without an output`);
    await this.steps.completeStepWithOutput(context.instance_uuid, last.output.uuid);
    return refOf(last.output);
  }

  /** A run begun before pins (or resumed on the workflow as it is now): the child as it is now. */
  private async current(userId: string, step: SubWorkflowStep): Promise<WorkflowDefinition> {
    const record = await this.workflows.find(userId, step.workflow_uuid);
    if (!record) throw new StepError('SubWorkflowMissing', `step "${step.name}" calls workflow ${step.workflow_uuid}, which is gone`);
    return definitionOf(record);
  }
}
