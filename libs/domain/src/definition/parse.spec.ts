import { randomUUID } from 'node:crypto';
import type { StepDefinition } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { checkPermutation, parseStep, parseWorkflowDocument, parseWorkflowInput, parseWorkflowPatch } from './parse';
import { validateStepChain } from './chain';

const llm = (overrides: Record<string, unknown> = {}) => ({
  type: 'custom_llm',
  name: `llm ${randomUUID().slice(0, 6)}`,
  model: 'gpt-4o-mini',
  system_prompt: 'Say hi',
  ...overrides,
});

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe(parseStep.name, () => {
  it('assigns a uuid and defaults', () => {
    const step = parseStep(llm(), '', () => 'new-uuid');
    expect(step).toMatchObject({ uuid: 'new-uuid', description: '', type: 'custom_llm' });
  });

  it('gives agents an empty tool list by default', () => {
    const step = parseStep(llm({ type: 'custom_agent' }), '', randomUUID);
    expect(step.type === 'custom_agent' && step.tools).toEqual([]);
  });

  it('refuses an unknown type, naming the field', () => {
    const error = errorOf(() => parseStep(llm({ type: 'shell' }), 'steps[1]', randomUUID));
    expect(error.code).toBe(ErrorCode.UnknownStepType);
    expect(error.details.field).toBe('steps[1].type');
  });

  it.each([['model'], ['system_prompt']])('refuses a missing %s', (field) => {
    const body = llm();
    delete (body as Record<string, unknown>)[field];
    const error = errorOf(() => parseStep(body, '', randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
  });

  it('refuses an empty prompt and unknown fields, listing every problem', () => {
    const error = errorOf(() => parseStep(llm({ system_prompt: '', colour: 'red' }), '', randomUUID));
    const fields = (error.details.errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['system_prompt', 'colour']));
  });

  it('refuses an output_schema that is not JSON Schema', () => {
    const error = errorOf(() => parseStep(llm({ output_schema: { type: 'bogus' } }), '', randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.InvalidOutputSchema, details: { field: 'output_schema' } });
  });

  it('refuses a malformed placeholder', () => {
    const error = errorOf(() => parseStep(llm({ system_prompt: 'Use <<step_output.>>' }), '', randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.InvalidPlaceholder, details: { field: 'system_prompt' } });
  });

  it('refuses an invalid JSONPath in a stop condition', () => {
    const body = {
      type: 'stop_checker',
      name: 'stop',
      stop_conditions: [{ step_definition_uuid: randomUUID(), extraction_json_path: 'alerts[', operator: 'equals', target_value: 1 }],
    };
    const error = errorOf(() => parseStep(body, '', randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.InvalidJsonPath, details: { field: 'stop_conditions[0].extraction_json_path' } });
  });

  it('refuses an unknown operator', () => {
    const body = {
      type: 'stop_checker',
      name: 'stop',
      stop_conditions: [{ step_definition_uuid: randomUUID(), extraction_json_path: '$.a', operator: 'like', target_value: 1 }],
    };
    expect(errorOf(() => parseStep(body, '', randomUUID)).details.field).toBe('stop_conditions[0].operator');
  });
});

describe(validateStepChain.name, () => {
  const chain = (...bodies: Record<string, unknown>[]): StepDefinition[] => bodies.map((b) => parseStep(b, '', randomUUID));

  it('accepts references to earlier steps', () => {
    const first = parseStep(llm(), '', randomUUID);
    const second = parseStep(llm({ system_prompt: `Use <<step_output.${first.uuid}.items[0]>> and $previous_output` }), '', randomUUID);
    expect(() => validateStepChain([first, second])).not.toThrow();
  });

  it('refuses duplicate names case-insensitively', () => {
    const error = errorOf(() => validateStepChain(chain(llm({ name: 'Fetch' }), llm({ name: 'fetch' }))));
    expect(error).toMatchObject({ code: ErrorCode.DuplicateStepName, details: { field: 'steps[1].name' } });
  });

  it('refuses a placeholder to a step that does not exist', () => {
    const error = errorOf(() => validateStepChain(chain(llm({ system_prompt: `<<step_output.${randomUUID()}>>` }))));
    expect(error).toMatchObject({ code: ErrorCode.UnknownStepReference, details: { field: 'steps[0].system_prompt' } });
  });

  it('refuses a placeholder to a later step', () => {
    const later = parseStep(llm(), '', randomUUID);
    const first = parseStep(llm({ system_prompt: `<<step_output.${later.uuid}>>` }), '', randomUUID);
    const error = errorOf(() => validateStepChain([first, later]));
    expect(error).toMatchObject({ code: ErrorCode.ForwardStepReference, details: { field: 'steps[0].system_prompt' } });
  });

  it('refuses stop conditions naming unknown or later steps', () => {
    const checker = (target: string) => ({
      type: 'stop_checker',
      name: `stop ${target.slice(0, 4)}`,
      stop_conditions: [{ step_definition_uuid: target, extraction_json_path: '$.a', operator: 'equals', target_value: 1 }],
    });
    const unknown = errorOf(() => validateStepChain(chain(checker(randomUUID()))));
    expect(unknown).toMatchObject({ code: ErrorCode.UnknownStepReference, details: { field: 'steps[0].stop_conditions[0].step_definition_uuid' } });
    const later = parseStep(llm(), '', randomUUID);
    const forward = errorOf(() => validateStepChain([parseStep(checker(later.uuid), '', randomUUID), later]));
    expect(forward.code).toBe(ErrorCode.ForwardStepReference);
  });
});

describe(parseWorkflowInput.name, () => {
  it('parses inline steps and a trigger with defaults', () => {
    const workflow = parseWorkflowInput({ name: 'wf', steps: [llm()], trigger: { type: 'manual' } }, randomUUID);
    expect(workflow).toMatchObject({ name: 'wf', description: '', is_active: true, trigger: { type: 'manual', filter_rules: {} } });
    expect(workflow.steps).toHaveLength(1);
  });

  it('names the step field with its index', () => {
    const error = errorOf(() => parseWorkflowInput({ name: 'wf', steps: [llm(), llm({ model: '' })] }, randomUUID));
    expect(error.details.field).toBe('steps[1].model');
  });

  it('refuses an unknown trigger type', () => {
    const error = errorOf(() => parseWorkflowInput({ name: 'wf', trigger: { type: 'email' } }, randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.UnknownTriggerType, details: { field: 'trigger.type' } });
  });

  it('requires a name', () => {
    expect(errorOf(() => parseWorkflowInput({}, randomUUID)).details.field).toBe('name');
  });
});

describe(parseWorkflowPatch.name, () => {
  it('takes only workflow fields', () => {
    expect(parseWorkflowPatch({ name: 'x' })).toEqual({ name: 'x' });
    expect(errorOf(() => parseWorkflowPatch({ steps: [] })).details.field).toBe('steps');
    expect(errorOf(() => parseWorkflowPatch({})).code).toBe(ErrorCode.ValidationFailed);
  });
});

describe(parseWorkflowDocument.name, () => {
  it('refuses a document without the format marker', () => {
    const error = errorOf(() => parseWorkflowDocument({ workflow: { name: 'x' } }, randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.ImportUnparseable, details: { field: 'format' } });
  });

  it('refuses a body that is not an object', () => {
    expect(errorOf(() => parseWorkflowDocument('nope', randomUUID)).code).toBe(ErrorCode.ImportUnparseable);
  });

  it('prefixes fields with workflow.', () => {
    const error = errorOf(() => parseWorkflowDocument({ format: 'stepwise.workflow/v1', workflow: { name: 'x', steps: [{ type: 'nope' }] } }, randomUUID));
    expect(error.details.field).toBe('workflow.steps[0].type');
  });
});

describe(checkPermutation.name, () => {
  const ids = [randomUUID(), randomUUID(), randomUUID()];

  it('accepts a permutation', () => {
    expect(checkPermutation(ids, [ids[2], ids[0], ids[1]])).toEqual([ids[2], ids[0], ids[1]]);
  });

  it.each([
    ['a missing step', [ids[0], ids[1]]],
    ['a duplicate', [ids[0], ids[0], ids[1]]],
    ['an unknown step', [ids[0], ids[1], randomUUID()]],
    ['not an array', 'abc'],
  ])('refuses %s', (_case, proposed) => {
    expect(errorOf(() => checkPermutation(ids, proposed))).toMatchObject({ code: ErrorCode.NotAPermutation, details: { field: 'step_uuids' } });
  });
});
