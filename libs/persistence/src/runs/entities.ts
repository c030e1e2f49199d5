// Entities of run records: runs, step instances, outputs, model calls, tool calls, tools.
export const runEntities: (new (...args: never[]) => unknown)[] = [];
