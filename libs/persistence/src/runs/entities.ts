import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity, ToolEntity } from './run.entities';

// Entities of run records: runs, step instances, outputs, model calls, tool calls, tools.
export const runEntities: (new () => unknown)[] = [RunEntity, StepInstanceEntity, StepOutputEntity, ModelCallEntity, ToolCallEntity, ToolEntity];
