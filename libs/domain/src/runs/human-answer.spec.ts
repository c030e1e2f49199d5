import { randomUUID } from 'node:crypto';
import type { HumanInputStep, StepDefinition, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { humanAnswerOf } from './human-answer';

const approve: HumanInputStep = {
  uuid: randomUUID(),
  type: 'human_input',
  name: 'approve',
  description: '',
  prompt: 'Approve?',
  input_schema: { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' } } },
};
const llm: StepDefinition = { uuid: randomUUID(), type: 'custom_llm', name: 'llm', description: '', model: 'm', system_prompt: 'hi' };
const definition = { steps: [llm, approve] } as unknown as WorkflowDefinition;

describe(humanAnswerOf.name, () => {
  it('gives the step and the answer when it follows input_schema (the step uuid in any case)', () => {
    expect(humanAnswerOf(definition, approve.uuid.toUpperCase(), { input: { approved: true } })).toEqual({
      step: approve,
      input: { approved: true },
    });
  });

  it('takes any JSON answer for a step without input_schema, null included', () => {
    const free = { ...approve, input_schema: null };
    expect(humanAnswerOf({ steps: [free] } as unknown as WorkflowDefinition, free.uuid, { input: null }).input).toBeNull();
  });

  it('refuses an answer that breaks input_schema, listing the schema errors', () => {
    const error = errorOf(() => humanAnswerOf(definition, approve.uuid, { input: { approved: 'yes' } }));
    expect(error).toMatchObject({ code: ErrorCode.InvalidHumanInput, details: { field: 'input', errors: ['approved must be boolean'] } });
  });

  it('refuses a body without input, a step of another type, and a step not in the run', () => {
    expect(errorOf(() => humanAnswerOf(definition, approve.uuid, { approved: true }))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      details: { field: 'input' },
    });
    expect(errorOf(() => humanAnswerOf(definition, llm.uuid, { input: 1 })).code).toBe(ErrorCode.StepNotAwaitingInput);
    expect(errorOf(() => humanAnswerOf(definition, randomUUID(), { input: 1 })).code).toBe(ErrorCode.NotFound);
  });
});
