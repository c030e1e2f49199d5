import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import { AppConfig } from '@app/config';
import { DefinitionStore, StepSummaries, toDetailsView, type StepWithSummary, type WorkflowDetailsView } from '@app/definitions';
import { checkPermutation, DomainError, ErrorCode, notFound, parseStep, requireJsonObject, validateDefinition } from '@app/domain';

function positionOf(value: unknown, length: number): number {
  if (value === undefined || value === null || value === -1) return length;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > length) {
    throw new DomainError(ErrorCode.ValidationFailed, `position must be an integer from 0 to ${length}, or -1 to append`, {
      field: 'position',
    });
  }
  return value as number;
}

/** Re-checks the whole definition after any structural change: references, and the graph's edges when there is one. */
function withSteps(current: WorkflowDefinition, steps: StepDefinition[]): WorkflowDefinition {
  validateDefinition(steps, current.graph);
  return { ...current, steps };
}

function indexOfStep(current: WorkflowDefinition, stepUuid: string): number {
  const index = current.steps.findIndex((step) => step.uuid === stepUuid);
  if (index < 0) throw notFound('Step', stepUuid);
  return index;
}

@Injectable()
export class StepsService {
  constructor(
    private readonly store: DefinitionStore,
    private readonly summaries: StepSummaries,
    private readonly config: AppConfig,
  ) {}

  async add(userId: string, workflowUuid: string, body: unknown): Promise<WorkflowDetailsView> {
    const { position, ...fields } = requireJsonObject(body);
    const step = parseStep(fields, '', randomUUID, this.config.limits.schema);
    await this.store.assertUuidsFree(userId, [{ uuid: step.uuid, field: 'uuid' }]);
    const record = await this.store.edit(userId, workflowUuid, (current) => {
      const steps = [...current.steps];
      steps.splice(positionOf(position, steps.length), 0, step);
      return withSteps(current, steps);
    });
    return toDetailsView(record);
  }

  async remove(userId: string, workflowUuid: string, stepUuid: string): Promise<WorkflowDetailsView> {
    const record = await this.store.edit(userId, workflowUuid, (current) => {
      const index = indexOfStep(current, stepUuid);
      return withSteps(
        current,
        current.steps.filter((_, i) => i !== index),
      );
    });
    return toDetailsView(record);
  }

  async reorder(userId: string, workflowUuid: string, body: unknown): Promise<WorkflowDetailsView> {
    const { step_uuids } = requireJsonObject(body);
    const record = await this.store.edit(userId, workflowUuid, (current) => {
      const order = checkPermutation(
        current.steps.map((step) => step.uuid),
        step_uuids,
      );
      return withSteps(
        current,
        order.map((uuid) => current.steps.find((step) => step.uuid === uuid)!),
      );
    });
    return toDetailsView(record);
  }

  /** With its generated_summary and its status, for an LLM or agent step. */
  async get(userId: string, stepUuid: string): Promise<StepWithSummary> {
    const workflow = await this.store.get(userId, await this.store.workflowOfStep(userId, stepUuid));
    const [step] = await this.summaries.shown([workflow.steps[indexOfStep(workflow, stepUuid)]]);
    return step;
  }

  /** Merges the fields into the stored step and validates the result like a new one; uuid and type stay. */
  async update(userId: string, stepUuid: string, body: unknown): Promise<StepWithSummary> {
    const patch = requireJsonObject(body);
    for (const field of ['uuid', 'type'] as const) {
      if (field in patch) throw new DomainError(ErrorCode.ValidationFailed, `${field} of a step cannot change`, { field });
    }
    const workflowUuid = await this.store.workflowOfStep(userId, stepUuid);
    const record = await this.store.edit(userId, workflowUuid, (current) => {
      const index = indexOfStep(current, stepUuid);
      const updated = parseStep({ ...current.steps[index], ...patch }, '', randomUUID, this.config.limits.schema);
      return withSteps(
        current,
        current.steps.map((step, i) => (i === index ? updated : step)),
      );
    });
    const [step] = await this.summaries.shown([record.steps.find((candidate) => candidate.uuid === stepUuid)!]);
    return step;
  }
}
