import { randomUUID } from 'node:crypto';
import type { CustomLlmStep, StepDefinition, StopCheckerStep } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { stepChainIssues, stepsReferring, validateStepChain } from './chain';

const llm = (overrides: Partial<CustomLlmStep> = {}): CustomLlmStep => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name: `llm ${randomUUID().slice(0, 8)}`,
  description: '',
  model: 'm',
  system_prompt: 'Say hi',
  ...overrides,
});

const checker = (target: string, overrides: Partial<StopCheckerStep> = {}): StopCheckerStep => ({
  uuid: randomUUID(),
  type: 'stop_checker',
  name: `stop ${randomUUID().slice(0, 8)}`,
  description: '',
  stop_conditions: [{ step_definition_uuid: target, extraction_json_path: '$.a', operator: 'equals', target_value: 1 }],
  ...overrides,
});

const uses = (step: StepDefinition, extra = '') => llm({ system_prompt: `Use <<step_output.${step.uuid}>>${extra}` });

describe(validateStepChain.name, () => {
  it('accepts an empty chain and references to earlier steps, the trigger and the previous output', () => {
    const first = llm({ system_prompt: 'Read <<trigger_output.body>> and $previous_output' });
    const second = llm({ system_prompt: `Use <<step_output.${first.uuid}.items[0]>> and <<step_output.${first.uuid}[-1]>>` });
    expect(() => validateStepChain([])).not.toThrow();
    expect(() => validateStepChain([first, second, checker(second.uuid), checker(first.uuid)])).not.toThrow();
  });

  it('refuses duplicate names, ignoring case and surrounding blanks', () => {
    const error = errorOf(() => validateStepChain([llm({ name: 'Fetch' }), llm(), llm({ name: ' fetch ' })]));
    expect(error).toMatchObject({ code: ErrorCode.DuplicateStepName, details: { field: 'steps[2].name' } });
    expect(error.message).toContain('steps[0]');
  });

  it('refuses duplicate uuids', () => {
    const step = llm();
    const error = errorOf(() => validateStepChain([step, llm({ uuid: step.uuid })]));
    expect(error).toMatchObject({ code: ErrorCode.DuplicateStepUuid, details: { field: 'steps[1].uuid' } });
  });

  it('refuses a placeholder to a step that is not in the chain', () => {
    const error = errorOf(() => validateStepChain([llm({ system_prompt: `<<step_output.${randomUUID()}>>` })]));
    expect(error).toMatchObject({ code: ErrorCode.UnknownStepReference, details: { field: 'steps[0].system_prompt' } });
  });

  it('refuses a placeholder to a later step or to the step itself', () => {
    const later = llm();
    expect(errorOf(() => validateStepChain([uses(later), later]))).toMatchObject({
      code: ErrorCode.ForwardStepReference,
      details: { field: 'steps[0].system_prompt' },
    });
    const self = llm();
    self.system_prompt = `<<step_output.${self.uuid}>>`;
    expect(errorOf(() => validateStepChain([llm(), self]))).toMatchObject({
      code: ErrorCode.ForwardStepReference,
      details: { field: 'steps[1].system_prompt' },
    });
  });

  it('refuses stop conditions naming unknown, later or their own step', () => {
    expect(errorOf(() => validateStepChain([checker(randomUUID())]))).toMatchObject({
      code: ErrorCode.UnknownStepReference,
      details: { field: 'steps[0].stop_conditions[0].step_definition_uuid' },
    });
    const later = llm();
    expect(errorOf(() => validateStepChain([checker(later.uuid), later]))).toMatchObject({
      code: ErrorCode.ForwardStepReference,
      details: { field: 'steps[0].stop_conditions[0].step_definition_uuid' },
    });
    const self = checker('');
    self.stop_conditions[0].step_definition_uuid = self.uuid;
    expect(errorOf(() => validateStepChain([self])).code).toBe(ErrorCode.ForwardStepReference);
  });

  it('names the fields under the prefix it is given', () => {
    expect(errorOf(() => validateStepChain([checker(randomUUID())], 'workflow.steps')).details.field).toBe(
      'workflow.steps[0].stop_conditions[0].step_definition_uuid',
    );
  });

  it('lists every problem, the first one giving the code', () => {
    const later = llm();
    const condition = checker(later.uuid).stop_conditions[0];
    const error = errorOf(() =>
      validateStepChain([
        llm({ name: 'a' }),
        llm({ name: 'A' }),
        checker(randomUUID(), { stop_conditions: [condition, { ...condition, step_definition_uuid: randomUUID() }] }),
        later,
      ]),
    );
    expect(error.code).toBe(ErrorCode.DuplicateStepName);
    expect(error.details.errors).toEqual([
      expect.objectContaining({ code: ErrorCode.DuplicateStepName, field: 'steps[1].name' }),
      expect.objectContaining({ code: ErrorCode.ForwardStepReference, field: 'steps[2].stop_conditions[0].step_definition_uuid' }),
      expect.objectContaining({ code: ErrorCode.UnknownStepReference, field: 'steps[2].stop_conditions[1].step_definition_uuid' }),
    ]);
  });
});

describe(stepChainIssues.name, () => {
  it('reports a step referred to twice in one prompt once', () => {
    const later = llm();
    expect(stepChainIssues([uses(later, ` and <<step_output.${later.uuid}.x>>`), later])).toHaveLength(1);
  });

  it('gives nothing for a valid chain', () => {
    const first = llm();
    expect(stepChainIssues([first, uses(first)])).toEqual([]);
  });
});

describe(stepsReferring.name, () => {
  it('lists the steps whose prompt or stop conditions name the step', () => {
    const first = llm();
    const prompt = uses(first);
    const stop = checker(first.uuid);
    expect(stepsReferring([first, prompt, llm(), stop], first.uuid)).toEqual([prompt.uuid, stop.uuid]);
    expect(stepsReferring([first, prompt], prompt.uuid)).toEqual([]);
  });
});
