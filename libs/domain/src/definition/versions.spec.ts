import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import { definitionHash, diffDefinitions, restoredDefinition } from './versions';

const step = (uuid: string, overrides: Record<string, unknown> = {}) =>
  ({
    uuid,
    name: `step ${uuid}`,
    type: 'custom_llm',
    description: '',
    system_prompt: 'Summarise <<trigger_output>>',
    ...overrides,
  }) as StepDefinition;

const workflow = (steps: StepDefinition[], overrides: Partial<WorkflowDefinition> = {}): WorkflowDefinition => ({
  uuid: 'wf',
  name: 'Prices',
  description: '',
  is_active: true,
  status: 'active',
  notify_url: null,
  notify_on_complete: false,
  notify_on_failure: true,
  tool_drift: 'warn',
  steps,
  trigger: null,
  graph: null,
  ...overrides,
});

describe(diffDefinitions.name, () => {
  it('finds nothing between a definition and itself', () => {
    const sut = workflow([step('a'), step('b')]);
    expect(diffDefinitions(sut, structuredClone(sut))).toEqual({
      workflow_fields: [],
      steps_added: [],
      steps_removed: [],
      steps_changed: [],
    });
  });

  it('lists steps added and removed by uuid, and a renamed step as changed, not as one removed and one added', () => {
    const before = workflow([step('a'), step('b')]);
    const after = workflow([step('a', { name: 'renamed' }), step('c')]);
    expect(diffDefinitions(before, after)).toEqual({
      workflow_fields: [],
      steps_added: [{ uuid: 'c', name: 'step c', type: 'custom_llm' }],
      steps_removed: [{ uuid: 'b', name: 'step b', type: 'custom_llm' }],
      steps_changed: [{ uuid: 'a', name: 'renamed', type: 'custom_llm', fields: [{ field: 'name', before: 'step a', after: 'renamed' }] }],
    });
  });

  it('names each changed field of a step with both values, a field only one side has against null, and a move as position', () => {
    const before = workflow([step('a'), step('b', { model: 'gpt-4o' })]);
    const after = workflow([step('b', { system_prompt: 'Label it', output_schema: { type: 'object' } }), step('a')]);
    const { steps_changed } = diffDefinitions(before, after);
    expect(steps_changed).toEqual([
      {
        uuid: 'b',
        name: 'step b',
        type: 'custom_llm',
        fields: [
          { field: 'system_prompt', before: 'Summarise <<trigger_output>>', after: 'Label it' },
          { field: 'model', before: 'gpt-4o', after: null },
          { field: 'position', before: 1, after: 0 },
          { field: 'output_schema', before: null, after: { type: 'object' } },
        ],
      },
      { uuid: 'a', name: 'step a', type: 'custom_llm', fields: [{ field: 'position', before: 0, after: 1 }] },
    ]);
  });

  it("lists the workflow's own changed fields (the trigger and graph as whole values), never its uuid or steps", () => {
    const trigger = { uuid: 't', type: 'webhook' as const, filter_rules: {}, initial_data_description: '' };
    const before = workflow([step('a')]);
    const after = workflow([step('a')], { uuid: 'other', name: 'Prices v2', trigger });
    expect(diffDefinitions(before, after).workflow_fields).toEqual([
      { field: 'name', before: 'Prices', after: 'Prices v2' },
      { field: 'trigger', before: null, after: trigger },
    ]);
  });
});

describe(definitionHash.name, () => {
  it('is the same for the same content whatever the key order, and differs when a prompt does', () => {
    const sut = workflow([step('a')]);
    const reordered = Object.fromEntries(Object.entries(sut).reverse()) as unknown as WorkflowDefinition;
    expect(definitionHash(reordered)).toBe(definitionHash(sut));
    expect(definitionHash(workflow([step('a', { system_prompt: 'x' })]))).not.toBe(definitionHash(sut));
  });
});

describe(restoredDefinition.name, () => {
  it("takes the version's content but keeps whether the workflow runs now, and its uuid", () => {
    const version = workflow([step('a')], { name: 'old', is_active: true, status: 'active' });
    const current = workflow([step('b')], { uuid: 'wf', name: 'new', is_active: false, status: 'paused' });
    expect(restoredDefinition(version, current)).toEqual({ ...version, is_active: false, status: 'paused' });
  });
});
