import { acceptingLegacyContexts, withExecutionNamed } from './legacy-step-context';

describe(withExecutionNamed.name, () => {
  const row = { parent_instance_uuid: 'parent', index: 2 };

  it('names a legacy iteration field execution, keeping the rest', () => {
    expect(withExecutionNamed({ instance_uuid: 'child', iteration: row, step: { name: 'x' } })).toEqual({
      instance_uuid: 'child',
      execution: row,
      step: { name: 'x' },
    });
  });

  it("leaves today's contexts, loops' iteration counts and other inputs as they are", () => {
    const today = { instance_uuid: 'child', execution: row };
    expect(withExecutionNamed(today)).toBe(today);
    const completeLoop = { instance_uuid: 'loop', iterations: 3 };
    expect(withExecutionNamed(completeLoop)).toBe(completeLoop);
    expect(withExecutionNamed(undefined)).toBeUndefined();
    expect(withExecutionNamed('text')).toBe('text');
  });
});

describe(acceptingLegacyContexts.name, () => {
  it('hands every activity its input with the new name and its other arguments unchanged', async () => {
    const seen: unknown[] = [];
    const activities = acceptingLegacyContexts({ runLlmStep: async (input: unknown, extra?: unknown) => seen.push(input, extra) });
    await activities.runLlmStep({ iteration: { parent_instance_uuid: 'p', index: 0 } }, 'extra');
    expect(seen).toEqual([{ execution: { parent_instance_uuid: 'p', index: 0 } }, 'extra']);
  });
});
