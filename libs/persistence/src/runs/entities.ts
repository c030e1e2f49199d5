import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity } from './run.entities';

// Entities of run records: runs, step instances, outputs, model calls, tool calls.
export const runEntities: (new () => unknown)[] = [RunEntity, StepInstanceEntity, StepOutputEntity, ModelCallEntity, ToolCallEntity];
