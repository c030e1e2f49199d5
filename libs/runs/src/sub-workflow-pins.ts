// The workflows a definition's sub_workflow steps and workflow tools reach, read for a save's checks and a run's pins.
import type { WorkflowDefinition } from '@app/contracts';
import { calledWorkflows, subWorkflowIssues, throwIssues } from '@app/domain';
import { definitionOf, type WorkflowRepository } from '@app/persistence';

/** The most workflows one check reads: more than any nesting SUB_WORKFLOW_MAX_DEPTH lets a run use. */
const MAX_WORKFLOWS_READ = 200;

/**
 * The user's workflows reachable from `root` through sub_workflow steps, by uuid (null: not the user's, or
 * gone), `maxDepth` + 1 levels down: enough to tell a call that nests too deep.
 */
export async function reachableWorkflows(
  workflows: WorkflowRepository,
  userId: string,
  root: WorkflowDefinition,
  maxDepth: number,
): Promise<Map<string, (WorkflowDefinition & { version?: number }) | null>> {
  const reached = new Map<string, (WorkflowDefinition & { version?: number }) | null>();
  let level = calledWorkflows(root).filter((uuid) => uuid !== root.uuid);
  for (let depth = 0; level.length && depth <= maxDepth && reached.size < MAX_WORKFLOWS_READ; depth++) {
    const next: string[] = [];
    for (const uuid of level) {
      if (reached.has(uuid) || reached.size >= MAX_WORKFLOWS_READ) continue;
      const record = await workflows.find(userId, uuid);
      const definition = record ? { ...definitionOf(record), version: record.version } : null;
      reached.set(uuid, definition);
      if (definition) next.push(...calledWorkflows(definition).filter((called) => called !== root.uuid && !reached.has(called)));
    }
    level = next;
  }
  return reached;
}

/**
 * `definition` with the definitions its sub_workflow steps run pinned (`sub_workflows`), after the checks a
 * save makes (a workflow saved before its child changed may fail them now: refused, nothing written).
 */
export async function pinSubWorkflows(
  workflows: WorkflowRepository,
  userId: string,
  definition: WorkflowDefinition,
  maxDepth: number,
): Promise<WorkflowDefinition> {
  if (!calledWorkflows(definition).length) return definition;
  const reached = await reachableWorkflows(workflows, userId, definition, maxDepth);
  throwIssues(subWorkflowIssues(definition, reached, maxDepth));
  const pinned = Object.fromEntries([...reached].flatMap(([uuid, found]) => (found ? [[uuid, found]] : [])));
  return { ...definition, sub_workflows: pinned };
}
