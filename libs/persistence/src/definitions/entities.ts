import { ApiKeyEntity, ScheduleEntity, StepSummaryEntity, TriggerEntity, TriggerEventEntity, TriggerSecretEntity, WorkflowEntity, WorkflowStepEntity } from './definition.entities';

// Entities of workflow definitions: workflows, workflow_steps, triggers, api_keys.
export const definitionEntities: (new () => unknown)[] = [WorkflowEntity, WorkflowStepEntity, TriggerEntity, ApiKeyEntity, TriggerSecretEntity, TriggerEventEntity, ScheduleEntity, StepSummaryEntity];
