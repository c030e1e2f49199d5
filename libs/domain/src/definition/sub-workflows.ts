// What a workflow's sub_workflow steps may call: workflows of the same user that exist, that never call it
// back (a cycle would start runs for ever), nested at most SUB_WORKFLOW_MAX_DEPTH deep, and, where a step's
// input holds no placeholder, an input the called workflow's input_schema accepts. Checked at save and
// again at a run's start over the definitions it is pinned to.
import type { JsonValue, SubWorkflowStep, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { hasPlaceholders } from '../placeholders';
import { fieldPath, type Issue } from './issues';
import { jsonSchemaErrors } from './json-schema';

export const subWorkflowSteps = (definition: Pick<WorkflowDefinition, 'steps'>): SubWorkflowStep[] =>
  definition.steps.filter((step): step is SubWorkflowStep => step.type === 'sub_workflow');

/** The workflows `definition` calls, directly. */
export const calledWorkflows = (definition: Pick<WorkflowDefinition, 'steps'>): string[] => [
  ...new Set(subWorkflowSteps(definition).map((step) => step.workflow_uuid)),
];

/** Whether any string in a step's input holds a placeholder: then only the run can tell what it is. */
function templated(value: JsonValue | undefined): boolean {
  if (typeof value === 'string') return value.includes('$previous_output') || hasPlaceholders(value);
  if (Array.isArray(value)) return value.some(templated);
  return value !== null && typeof value === 'object' && Object.values(value).some(templated);
}

/**
 * Problems of `root`'s calls, given the definitions reachable from it (`reached`: null for a workflow that
 * does not exist, or is not the user's). `stepsField` prefixes the fields named.
 */
export function subWorkflowIssues(
  root: WorkflowDefinition,
  reached: ReadonlyMap<string, WorkflowDefinition | null>,
  maxDepth: number,
  stepsField = 'steps',
): Issue[] {
  const issues: Issue[] = [];
  root.steps.forEach((step, i) => {
    if (step.type !== 'sub_workflow') return;
    const field = fieldPath(stepsField, `[${i}].workflow_uuid`);
    const called = step.workflow_uuid === root.uuid ? root : reached.get(step.workflow_uuid);
    if (!called) {
      issues.push({
        code: ErrorCode.InvalidSubWorkflow,
        field,
        message: `${field} names workflow ${step.workflow_uuid}, which is not one of yours`,
      });
      return;
    }
    const cycle = pathBack(root, step.workflow_uuid, reached);
    if (cycle) {
      const names = cycle.map((uuid) => (uuid === root.uuid ? root : reached.get(uuid))?.name ?? uuid);
      issues.push({
        code: ErrorCode.SubWorkflowCycle,
        field,
        message: `${field} calls back into "${root.name}": ${[root.name, ...names].join(' → ')}`,
      });
      return;
    }
    const depth = 1 + deepest(step.workflow_uuid, reached, new Set([root.uuid]));
    if (depth > maxDepth)
      issues.push({
        code: ErrorCode.InvalidSubWorkflow,
        field,
        message: `${field} nests sub-workflows ${depth} deep, more than the ${maxDepth} allowed here (SUB_WORKFLOW_MAX_DEPTH)`,
      });
    if (called.input_schema && step.input !== undefined && !templated(step.input)) {
      const errors = jsonSchemaErrors(called.input_schema, step.input);
      const at = fieldPath(stepsField, `[${i}].input`);
      if (errors.length)
        issues.push({
          code: ErrorCode.InvalidSubWorkflow,
          field: at,
          message: `${at} does not follow "${called.name}"'s input_schema: ${errors.join('; ')}`,
        });
    }
  });
  return issues;
}

/** The calls from `from` that lead back to `root`, or null. */
function pathBack(root: WorkflowDefinition, from: string, reached: ReadonlyMap<string, WorkflowDefinition | null>): string[] | null {
  const search = (at: string, path: string[], seen: Set<string>): string[] | null => {
    if (at === root.uuid) return path;
    if (seen.has(at)) return null;
    seen.add(at);
    for (const next of calledWorkflows(reached.get(at) ?? { steps: [] })) {
      const found = search(next, [...path, next], seen);
      if (found) return found;
    }
    return null;
  };
  return search(from, [from], new Set());
}

/** How many levels of calls `uuid` makes below itself (cycles elsewhere are their own workflows' problem). */
function deepest(uuid: string, reached: ReadonlyMap<string, WorkflowDefinition | null>, stack: Set<string>): number {
  if (stack.has(uuid)) return 0;
  const next = calledWorkflows(reached.get(uuid) ?? { steps: [] });
  if (!next.length) return 0;
  const inner = new Set([...stack, uuid]);
  return 1 + Math.max(...next.map((child) => deepest(child, reached, inner)));
}
