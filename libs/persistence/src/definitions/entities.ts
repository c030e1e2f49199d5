import {
  StepSummaryEntity,
  TriggerEntity,
  TriggerEventEntity,
  TriggerSecretEntity,
  WorkflowEntity,
  WorkflowStepEntity,
  WorkflowVersionEntity,
} from './definition.entities';

// Entities of workflow definitions: workflows, workflow_steps, step summaries, triggers and their webhook deliveries.
export const definitionEntities: (new () => unknown)[] = [
  WorkflowEntity,
  WorkflowStepEntity,
  TriggerEntity,
  TriggerSecretEntity,
  TriggerEventEntity,
  StepSummaryEntity,
  WorkflowVersionEntity,
];
