// What a workflow's sub_workflow steps and its agents' workflow tools (`workflow:<uuid>`) may call: workflows
// of the same user that exist, that never call it back (a cycle would start runs for ever), nested at most
// SUB_WORKFLOW_MAX_DEPTH deep, and, where a step's input holds no placeholder, an input the called
// workflow's input_schema accepts. Checked at save and again at a run's start over the definitions it is
// pinned to.
import type { JsonValue, StepDefinition, SubWorkflowStep, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { hasPlaceholders } from '../placeholders';
import { fieldPath, type Issue } from './issues';
import { jsonSchemaErrors } from './json-schema';

export const subWorkflowSteps = (definition: Pick<WorkflowDefinition, 'steps'>): SubWorkflowStep[] =>
  definition.steps.filter((step): step is SubWorkflowStep => step.type === 'sub_workflow');

/** How an agent's `tools` names a workflow of the user it may call as a tool. */
export const WORKFLOW_TOOL_PREFIX = 'workflow:';

/** The workflow uuid an agent's tool entry names, or null for any other tool. */
export const workflowToolUuid = (tool: string): string | null =>
  tool.startsWith(WORKFLOW_TOOL_PREFIX) ? tool.slice(WORKFLOW_TOOL_PREFIX.length) : null;

/** Each call a step makes of another workflow: the uuid, and where in the step it is named. */
function callsOf(step: StepDefinition): { uuid: string; at: string; input?: JsonValue }[] {
  if (step.type === 'sub_workflow') return [{ uuid: step.workflow_uuid, at: '.workflow_uuid', input: step.input }];
  if (step.type !== 'custom_agent') return [];
  return step.tools.flatMap((tool, i) => {
    const uuid = workflowToolUuid(tool);
    return uuid ? [{ uuid, at: `.tools[${i}]` }] : [];
  });
}

/** The workflows `definition` calls, directly: by sub_workflow steps and as agents' tools. */
export const calledWorkflows = (definition: Pick<WorkflowDefinition, 'steps'>): string[] => [
  ...new Set(definition.steps.flatMap((step) => callsOf(step).map((call) => call.uuid))),
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
  root.steps.forEach((step, i) =>
    callsOf(step).forEach(({ uuid, at, input }) => {
      const field = fieldPath(stepsField, `[${i}]${at}`);
      const called = uuid === root.uuid ? root : reached.get(uuid);
      if (!called) {
        issues.push({
          code: ErrorCode.InvalidSubWorkflow,
          field,
          message: `${field} names workflow ${uuid}, which is not one of yours`,
        });
        return;
      }
      const cycle = pathBack(root, uuid, reached);
      if (cycle) {
        const names = cycle.map((found) => (found === root.uuid ? root : reached.get(found))?.name ?? found);
        issues.push({
          code: ErrorCode.SubWorkflowCycle,
          field,
          message: `${field} calls back into "${root.name}": ${[root.name, ...names].join(' → ')}`,
        });
        return;
      }
      const depth = 1 + deepest(uuid, reached, new Set([root.uuid]));
      if (depth > maxDepth)
        issues.push({
          code: ErrorCode.InvalidSubWorkflow,
          field,
          message: `${field} nests sub-workflows ${depth} deep, more than the ${maxDepth} allowed here (SUB_WORKFLOW_MAX_DEPTH)`,
        });
      if (called.input_schema && input !== undefined && !templated(input)) {
        const errors = jsonSchemaErrors(called.input_schema, input);
        const inputField = fieldPath(stepsField, `[${i}].input`);
        if (errors.length)
          issues.push({
            code: ErrorCode.InvalidSubWorkflow,
            field: inputField,
            message: `${inputField} does not follow "${called.name}"'s input_schema: ${errors.join('; ')}`,
          });
      }
    }),
  );
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

/**
 * The names the model is offered for workflow tools: each workflow's name made safe for every provider
 * (^[a-zA-Z0-9_-]{1,64}$), with a piece of its uuid added when it would clash with `taken` or another's.
 */
export function workflowToolNames(workflows: readonly { uuid: string; name: string }[], taken: readonly string[]): Map<string, string> {
  const used = new Set(taken);
  const names = new Map<string, string>();
  for (const { uuid, name } of workflows) {
    const safe = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'workflow';
    let offered = safe.slice(0, 64);
    if (used.has(offered)) offered = `${safe.slice(0, 55)}_${uuid.replace(/-/g, '').slice(0, 8)}`;
    used.add(offered);
    names.set(uuid, offered);
  }
  return names;
}
