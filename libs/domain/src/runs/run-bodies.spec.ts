import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { BUDGET_APPROVAL_BODY, HUMAN_ANSWER_BODY, MESSAGE_BODY, RESUME_BODY, RUN_START_BODY } from './run-bodies';

/** The code and the field a refused body names, as the API answers them. */
const refusal = (parse: () => unknown) => {
  const { code, details } = errorOf(parse);
  return { code, field: details?.field };
};
const invalid = (field: string) => ({ code: ErrorCode.ValidationFailed, field });

describe('RUN_START_BODY', () => {
  it('reads the trigger data, whether it is a dry run, and the budget, with their defaults', () => {
    expect(RUN_START_BODY.parse({})).toEqual({ trigger_output: null, dry_run: false });
    expect(RUN_START_BODY.parse({ trigger_output: { a: 1 }, dry_run: true, budget: { max_tokens: 500 } })).toEqual({
      trigger_output: { a: 1 },
      dry_run: true,
      budget: { max_tokens: 500 },
    });
    expect(RUN_START_BODY.parse({ budget: null, extra: 'kept out' })).toEqual({ trigger_output: null, dry_run: false });
    expect(RUN_START_BODY.parse({ budget: { max_cost: 0.25 } }).budget).toEqual({ max_cost: 0.25 });
    expect(RUN_START_BODY.parse({ budget: { max_tokens: 9, max_cost: 2 } }).budget).toEqual({ max_tokens: 9, max_cost: 2 });
  });

  it.each<[string, string, unknown]>([
    ['no body', 'body', undefined],
    ['an array', 'body', []],
    ['dry_run not a boolean', 'dry_run', { dry_run: 'yes' }],
    ['a budget of no tokens', 'budget.max_tokens', { budget: { max_tokens: 0 } }],
    ['a budget of part of a token', 'budget.max_tokens', { budget: { max_tokens: 1.5 } }],
    ['a budget without a limit', 'budget', { budget: {} }],
    ['a budget of no dollars', 'budget.max_cost', { budget: { max_cost: 0 } }],
    ['a budget in another unit', 'budget.max_euros', { budget: { max_euros: 3 } }],
    ['trigger data deeper than MySQL stores', 'trigger_output', { trigger_output: JSON.parse('['.repeat(40) + ']'.repeat(40)) }],
  ])('refuses %s, naming %s', (_, field, body) => {
    expect(refusal(() => RUN_START_BODY.parse(body))).toEqual(invalid(field));
  });
});

describe('RESUME_BODY', () => {
  it('reads an absent body as a resume from the failed step of the original definition', () => {
    expect(RESUME_BODY.parse(undefined)).toEqual({ definition: 'original' });
    expect(RESUME_BODY.required).toBe(false);
  });

  it('reads the step and the definition', () => {
    const step = randomUUID();
    expect(RESUME_BODY.parse({ from_step_uuid: step, definition: 'current' })).toEqual({ from_step_uuid: step, definition: 'current' });
  });

  it.each<[unknown, string]>([
    [{ from_step_uuid: 'step-3' }, 'from_step_uuid'],
    [{ from_step_uuid: `urn:uuid:${randomUUID()}` }, 'from_step_uuid'],
    [{ definition: 'latest' }, 'definition'],
    [{ from: randomUUID() }, 'from'],
  ])('refuses %j, naming %s', (body, field) => {
    expect(refusal(() => RESUME_BODY.parse(body))).toEqual(invalid(field));
  });
});

describe('the bodies of a run in flight', () => {
  it('name the field an absent body misses', () => {
    expect(refusal(() => BUDGET_APPROVAL_BODY.parse(undefined))).toEqual(invalid('body'));
    expect(refusal(() => MESSAGE_BODY.parse(undefined))).toEqual(invalid('content'));
    expect(refusal(() => HUMAN_ANSWER_BODY.parse(undefined))).toEqual(invalid('input'));
    expect([BUDGET_APPROVAL_BODY, MESSAGE_BODY, HUMAN_ANSWER_BODY].map((body) => body.required)).toEqual([true, true, true]);
  });

  it('take a whole number of tokens, a message with text in it, and any storable answer', () => {
    expect(BUDGET_APPROVAL_BODY.parse({ max_tokens: 100 })).toEqual({ max_tokens: 100 });
    expect(BUDGET_APPROVAL_BODY.parse({ max_cost: 1.5 })).toEqual({ max_cost: 1.5 });
    expect(refusal(() => BUDGET_APPROVAL_BODY.parse({ max_tokens: 0 }))).toEqual(invalid('max_tokens'));
    expect(MESSAGE_BODY.parse({ content: ' hi ' })).toEqual({ content: ' hi ' });
    expect(refusal(() => MESSAGE_BODY.parse({ content: ' ' }))).toEqual(invalid('content'));
    expect(refusal(() => MESSAGE_BODY.parse({ content: 42 }))).toEqual(invalid('content'));
    expect(HUMAN_ANSWER_BODY.parse({ input: null })).toEqual({ input: null });
    expect(refusal(() => HUMAN_ANSWER_BODY.parse({ input: '\ud800' }))).toEqual(invalid('input'));
  });
});
