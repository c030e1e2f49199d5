import { randomUUID } from 'node:crypto';
import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { calledWorkflows, subWorkflowIssues, workflowToolNames } from './sub-workflows';

const call = (workflow: WorkflowDefinition, input?: unknown): StepDefinition =>
  ({
    uuid: randomUUID(),
    type: 'sub_workflow',
    name: `call ${workflow.name}`,
    description: '',
    workflow_uuid: workflow.uuid,
    input,
  }) as StepDefinition;
const agentUsing = (...workflows: WorkflowDefinition[]): StepDefinition =>
  ({
    uuid: randomUUID(),
    type: 'custom_agent',
    name: 'agent',
    description: '',
    model: 'gpt-4o-mini',
    system_prompt: 'help',
    tools: ['http_request', ...workflows.map((called) => `workflow:${called.uuid}`)],
  }) as StepDefinition;
const workflow = (name: string, steps: StepDefinition[] = [], fields: Partial<WorkflowDefinition> = {}): WorkflowDefinition => ({
  uuid: randomUUID(),
  name,
  description: '',
  is_active: true,
  status: 'active',
  notify_url: null,
  notify_on_complete: false,
  notify_on_failure: false,
  tool_drift: 'warn',
  steps,
  trigger: null,
  ...fields,
});
const reachedOf = (...workflows: WorkflowDefinition[]) => new Map(workflows.map((found) => [found.uuid, found]));
const codesOf = (root: WorkflowDefinition, reached: Map<string, WorkflowDefinition | null>, maxDepth = 5) =>
  subWorkflowIssues(root, reached, maxDepth).map((issue) => [issue.code, issue.field]);

describe(subWorkflowIssues.name, () => {
  it('accepts a call of another workflow of the user, nested within the bound', () => {
    const leaf = workflow('leaf');
    const middle = workflow('middle', [call(leaf)]);
    expect(codesOf(workflow('root', [call(middle)]), reachedOf(middle, leaf), 2)).toEqual([]);
  });

  it('refuses a workflow that is not the user’s, and nesting past the bound', () => {
    const stranger = workflow('stranger');
    expect(codesOf(workflow('root', [call(stranger)]), new Map([[stranger.uuid, null]]))).toEqual([
      [ErrorCode.InvalidSubWorkflow, 'steps[0].workflow_uuid'],
    ]);
    const leaf = workflow('leaf');
    const middle = workflow('middle', [call(leaf)]);
    expect(codesOf(workflow('root', [call(middle)]), reachedOf(middle, leaf), 1)).toEqual([
      [ErrorCode.InvalidSubWorkflow, 'steps[0].workflow_uuid'],
    ]);
  });

  it('refuses a call that comes back, directly or through another workflow, naming the path', () => {
    const root = workflow('A');
    const b = workflow('B', [call(root)]);
    root.steps.push(call(b));
    const [issue] = subWorkflowIssues(root, reachedOf(b), 5);
    expect(issue).toMatchObject({ code: ErrorCode.SubWorkflowCycle, field: 'steps[0].workflow_uuid' });
    expect(issue.message).toContain('A → B → A');
    const itself = workflow('self');
    itself.steps.push(call(itself));
    expect(codesOf(itself, new Map())).toEqual([[ErrorCode.SubWorkflowCycle, 'steps[0].workflow_uuid']]);
  });

  it('checks an input without placeholders against the called workflow’s input_schema; one with placeholders waits for the run', () => {
    const child = workflow('child', [], { input_schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } } });
    expect(codesOf(workflow('root', [call(child, { town: 'Lyon' })]), reachedOf(child))).toEqual([
      [ErrorCode.InvalidSubWorkflow, 'steps[0].input'],
    ]);
    expect(codesOf(workflow('root', [call(child, { city: 'Lyon' })]), reachedOf(child))).toEqual([]);
    expect(codesOf(workflow('root', [call(child, { town: '<<trigger_output.town>>' })]), reachedOf(child))).toEqual([]);
  });

  it('checks an agent’s workflow tools as calls: not the user’s, a cycle through them, nesting past the bound', () => {
    const stranger = workflow('stranger');
    expect(codesOf(workflow('root', [agentUsing(stranger)]), new Map([[stranger.uuid, null]]))).toEqual([
      [ErrorCode.InvalidSubWorkflow, 'steps[0].tools[1]'],
    ]);
    const root = workflow('A');
    const b = workflow('B', [call(root)]);
    root.steps.push(agentUsing(b));
    const [issue] = subWorkflowIssues(root, reachedOf(b), 5);
    expect(issue).toMatchObject({ code: ErrorCode.SubWorkflowCycle, field: 'steps[0].tools[1]' });
    expect(issue.message).toContain('A → B → A');
    const leaf = workflow('leaf');
    const middle = workflow('middle', [agentUsing(leaf)]);
    expect(calledWorkflows(middle)).toEqual([leaf.uuid]);
    expect(codesOf(workflow('root', [agentUsing(middle)]), reachedOf(middle, leaf), 1)).toEqual([
      [ErrorCode.InvalidSubWorkflow, 'steps[0].tools[1]'],
    ]);
  });
});

describe(workflowToolNames.name, () => {
  it('offers each workflow under its name made safe, a piece of its uuid added when the name is taken', () => {
    const first = { uuid: '0a1b2c3d-0000-4000-8000-000000000001', name: 'Summarise a page!' };
    const second = { uuid: '9f8e7d6c-0000-4000-8000-000000000002', name: 'Summarise a page?' };
    const clash = { uuid: '11112222-0000-4000-8000-000000000003', name: 'http_request' };
    const names = workflowToolNames([first, second, clash, { uuid: randomUUID(), name: '€€€' }], ['http_request']);
    expect([...names.values()]).toEqual(['Summarise_a_page', 'Summarise_a_page_9f8e7d6c', 'http_request_11112222', 'workflow']);
    const long = workflowToolNames([{ uuid: randomUUID(), name: 'x'.repeat(100) }], []);
    expect([...long.values()][0]).toMatch(/^[a-zA-Z0-9_-]{64}$/);
  });
});
