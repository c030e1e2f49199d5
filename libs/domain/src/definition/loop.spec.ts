import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { parseStep, parseWorkflowInput } from './parse';

const llm = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'custom_llm',
  name: `llm ${randomUUID().slice(0, 8)}`,
  model: 'm',
  system_prompt: 'Say hi',
  ...overrides,
});
const fieldOf = (body: unknown) => errorOf(() => parseStep(body, 'steps[0]', randomUUID));

describe('step loops', () => {
  it('fills in the bounds of for_each and repeat_until', () => {
    expect(
      parseStep(
        llm({ system_prompt: 'Do <<item>> (<<item_index>>)', loop: { type: 'for_each', input_path: '<<trigger_output.items>>' } }),
        '',
        randomUUID,
      ),
    ).toMatchObject({
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_items: 100 },
    });
    expect(
      parseStep(llm({ loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true } }), '', randomUUID),
    ).toMatchObject({
      loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true, max_iters: 10 },
    });
  });

  it.each([
    [{ type: 'for_each' }, ErrorCode.InvalidLoop, 'steps[0].loop.input_path'],
    [{ type: 'for_each', input_path: 'items' }, ErrorCode.InvalidLoop, 'steps[0].loop.input_path'],
    [{ type: 'for_each', input_path: '<<trigger_output.a>> <<trigger_output.b>>' }, ErrorCode.InvalidLoop, 'steps[0].loop.input_path'],
    [{ type: 'for_each', input_path: '<<trigger_output>>', max_items: 0 }, ErrorCode.ValidationFailed, 'steps[0].loop.max_items'],
    [{ type: 'for_each', input_path: '<<trigger_output>>', max_iters: 3 }, ErrorCode.InvalidLoop, 'steps[0].loop.max_iters'],
    [{ type: 'repeat_until', predicate_path: '$.done' }, ErrorCode.InvalidLoop, 'steps[0].loop.predicate_value'],
    [{ type: 'repeat_until', predicate_path: 'done', predicate_value: 1 }, ErrorCode.InvalidJsonPath, 'steps[0].loop.predicate_path'],
    [
      { type: 'repeat_until', predicate_path: '$.done', predicate_value: 1, max_iters: 10001 },
      ErrorCode.ValidationFailed,
      'steps[0].loop.max_iters',
    ],
    [{ type: 'while' }, ErrorCode.ValidationFailed, 'steps[0].loop.type'],
    [
      { type: 'for_each', input_path: '<<trigger_output>>', max_concurrency: 0 },
      ErrorCode.ValidationFailed,
      'steps[0].loop.max_concurrency',
    ],
    [
      { type: 'for_each', input_path: '<<trigger_output>>', max_concurrency: 101 },
      ErrorCode.ValidationFailed,
      'steps[0].loop.max_concurrency',
    ],
    [
      { type: 'for_each', input_path: '<<trigger_output>>', on_item_failure: 'retry' },
      ErrorCode.ValidationFailed,
      'steps[0].loop.on_item_failure',
    ],
    [
      { type: 'repeat_until', predicate_path: '$.done', predicate_value: 1, max_concurrency: 2 },
      ErrorCode.InvalidLoop,
      'steps[0].loop.max_concurrency',
    ],
    [
      { type: 'repeat_until', predicate_path: '$.done', predicate_value: 1, on_item_failure: 'continue' },
      ErrorCode.InvalidLoop,
      'steps[0].loop.on_item_failure',
    ],
  ])('refuses loop %j with %s naming %s', (loop, code, field) => {
    expect(fieldOf(llm({ loop }))).toMatchObject({ code, details: { field } });
  });

  it('takes a for_each’s max_concurrency and on_item_failure as given, absent when not given (one item at a time, fail fast)', () => {
    const loop = { type: 'for_each', input_path: '<<trigger_output.items>>', max_concurrency: 10, on_item_failure: 'continue' };
    expect(parseStep(llm({ loop }), '', randomUUID)).toMatchObject({ loop });
    const plain = parseStep(llm({ loop: { type: 'for_each', input_path: '<<trigger_output.items>>' } }), '', randomUUID);
    expect(plain.type === 'custom_llm' && plain.loop).not.toHaveProperty('max_concurrency');
  });

  it('takes only for_each on a sub_workflow step', () => {
    const call = { type: 'sub_workflow', name: 'call', workflow_uuid: randomUUID(), input: { city: '<<item>>' } };
    const forEach = { type: 'for_each', input_path: '<<trigger_output.cities>>', max_concurrency: 4 };
    expect(parseStep({ ...call, loop: forEach }, '', randomUUID)).toMatchObject({ loop: forEach });
    expect(fieldOf({ ...call, loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true } })).toMatchObject({
      code: ErrorCode.InvalidLoop,
      details: { field: 'steps[0].loop.type' },
    });
  });

  it('refuses <<item>> outside a for_each step', () => {
    expect(fieldOf(llm({ system_prompt: 'Do <<item.name>>' }))).toMatchObject({
      code: ErrorCode.InvalidPlaceholder,
      details: { field: 'steps[0].system_prompt' },
    });
  });

  it('checks that input_path names an earlier step, and lets a looping step read its own earlier iterations', () => {
    const first = llm({ uuid: randomUUID() });
    const selfUuid = randomUUID();
    const later = llm({
      uuid: selfUuid,
      system_prompt: `Improve <<step_output.${selfUuid}[-1]|nothing yet>>`,
      loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true },
    });
    expect(parseWorkflowInput({ name: 'ok', output_history_size: 7, steps: [first, later] }, randomUUID)).toMatchObject({
      output_history_size: 7,
    });
    const forward = llm({ loop: { type: 'for_each', input_path: `<<step_output.${first.uuid}.items>>` } });
    expect(errorOf(() => parseWorkflowInput({ name: 'bad', steps: [forward, first] }, randomUUID))).toMatchObject({
      code: ErrorCode.ForwardStepReference,
      details: { field: 'steps[0].loop.input_path' },
    });
    expect(errorOf(() => parseWorkflowInput({ name: 'bad', output_history_size: 0, steps: [] }, randomUUID))).toMatchObject({
      details: { field: 'output_history_size' },
    });
  });
});
