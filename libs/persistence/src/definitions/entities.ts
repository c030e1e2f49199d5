// Entities of workflow definitions: workflows, workflow_steps, triggers, api_keys.
export const definitionEntities: (new (...args: never[]) => unknown)[] = [];
