import type { StepDefinition, TriggerDefinition, WorkflowDefinition } from '@app/contracts';
import type { QueryDeepPartialEntity } from 'typeorm';
import type { TriggerEntity, WorkflowEntity, WorkflowStepEntity } from './definition.entities';
import type { WorkflowRecord } from './workflow.repository';

export function toStep(entity: WorkflowStepEntity): StepDefinition {
  return { ...entity.details, uuid: entity.uuid, name: entity.name, type: entity.type } as StepDefinition;
}

type Row<T> = QueryDeepPartialEntity<T>;

export function toStepRow(step: StepDefinition, workflowUuid: string, userId: string): Row<WorkflowStepEntity> {
  const { uuid, name, type, ...details } = step;
  return { uuid, name, type, details: details as Row<WorkflowStepEntity>['details'], workflow_uuid: workflowUuid, user_id: userId };
}

export function toTrigger(entity: TriggerEntity): TriggerDefinition {
  return {
    uuid: entity.uuid,
    type: entity.type as TriggerDefinition['type'],
    filter_rules: (entity.details.filter_rules as TriggerDefinition['filter_rules']) ?? {},
    initial_data_description: (entity.details.initial_data_description as string) ?? '',
  };
}

export function toTriggerRow(trigger: TriggerDefinition, workflowUuid: string, userId: string): Row<TriggerEntity> {
  const { uuid, type, ...details } = trigger;
  return { uuid, type, details: details as Row<TriggerEntity>['details'], workflow_uuid: workflowUuid, user_id: userId };
}

/** The workflow row's columns a save writes from the definition (create and update alike); steps and trigger have rows of their own. */
export function toWorkflowRow(definition: WorkflowDefinition): Row<WorkflowEntity> {
  return {
    name: definition.name,
    description: definition.description,
    is_active: definition.is_active,
    status: definition.status,
    notify_url: definition.notify_url,
    notify_on_complete: definition.notify_on_complete,
    notify_on_failure: definition.notify_on_failure,
    tool_drift: definition.tool_drift,
    output_history_size: definition.output_history_size ?? null,
    input_schema: (definition.input_schema ?? null) as Row<WorkflowEntity>['input_schema'],
    budget: definition.budget ?? null,
    trigger_uuid: definition.trigger?.uuid ?? null,
    steps: definition.steps.map((step) => step.uuid),
    graph: (definition.graph ?? null) as Row<WorkflowEntity>['graph'],
  };
}

export function toWorkflowRecord(workflow: WorkflowEntity, steps: WorkflowStepEntity[], trigger: TriggerEntity | null): WorkflowRecord {
  const byUuid = new Map(steps.map((step) => [step.uuid, step]));
  const definition: WorkflowDefinition = {
    uuid: workflow.uuid,
    name: workflow.name,
    description: workflow.description,
    is_active: workflow.is_active,
    status: workflow.status,
    notify_url: workflow.notify_url,
    notify_on_complete: workflow.notify_on_complete,
    notify_on_failure: workflow.notify_on_failure,
    tool_drift: workflow.tool_drift,
    ...(workflow.output_history_size !== null ? { output_history_size: workflow.output_history_size } : {}),
    ...(workflow.input_schema ? { input_schema: workflow.input_schema } : {}),
    ...(workflow.budget ? { budget: workflow.budget } : {}),
    steps: workflow.steps.flatMap((uuid) => (byUuid.has(uuid) ? [toStep(byUuid.get(uuid)!)] : [])),
    trigger: trigger ? toTrigger(trigger) : null,
    graph: workflow.graph ?? null,
  };
  const { total_runs, successful_runs, failed_runs, tool_manifest, tool_manifest_hash } = workflow;
  return {
    ...definition,
    user_id: workflow.user_id,
    notify_secret: workflow.notify_secret,
    version: workflow.version,
    tool_manifest,
    tool_manifest_hash,
    total_runs,
    successful_runs,
    failed_runs,
    created_at: workflow.created_at,
    updated_at: workflow.updated_at,
  };
}
