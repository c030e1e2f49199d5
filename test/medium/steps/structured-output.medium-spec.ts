import type { ChatMessage } from '@app/contracts';
import { RunEventRepository } from '@app/persistence';
import { StepError } from '../../../apps/worker/src/execution/step-error';
import { StructuredOutputService } from '../../../apps/worker/src/execution/structured-output.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(StructuredOutputService.name, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: StructuredOutputService;
  const step = llmStep({
    output_schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    max_correction_attempts: 1,
  });
  const asked: ChatMessage[] = [
    { role: 'system', content: 'Name a city as JSON' },
    { role: 'user', content: 'Execute your task.' },
  ];

  beforeAll(async () => {
    setup = await setUpStepServices();
    sut = setup.structured;
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  async function recordedContext() {
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    return stepContext(run, 0);
  }

  it('takes an answer that already follows the schema without asking again', async () => {
    const context = await recordedContext();

    const settled = await sut.settle(context, step, [...asked, { role: 'assistant', content: '{"city":"Lyon"}' }], 1, activityScope());

    expect(settled.data).toEqual({ city: 'Lyon' });
    expect(setup.model.requests).toHaveLength(0);
  });

  it('asks for a correction as the next turn, without tools, and keeps the whole exchange', async () => {
    const context = await recordedContext();
    setup.model.script(reply.json({ city: 'Porto' }));

    const settled = await sut.settle(context, step, [...asked, { role: 'assistant', content: 'Porto, I think' }], 3, activityScope());

    expect(settled.data).toEqual({ city: 'Porto' });
    expect(settled.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(settled.messages[3].content).toContain('- the answer holds no JSON object or array');
    expect(setup.model.requests[0].body.tools).toBeUndefined();
    expect(setup.model.requests[0].body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: step.output_schema },
    });
    expect(await setup.rows.modelCalls(context.instance_uuid)).toEqual([expect.objectContaining({ turn: 4, status: 'completed' })]);
    expect(await setup.rows.sentMessageCounts(context.instance_uuid)).toEqual([4]);
    // Watchers are told to drop the rejected answer's streamed text: the correction restarts it.
    const events = await setup.get(RunEventRepository).eventsAfter(context.run_uuid, 0, 100);
    expect(events.find((event) => event.type === 'attempt_restarted')?.payload).toMatchObject({
      instance_uuid: context.instance_uuid,
      turn: 4,
      reason: 'correction',
      previous_turn: 3,
    });
  });

  it('fails the step for good once the corrections allowed are spent, the exchange saved on it', async () => {
    const context = await recordedContext();
    setup.model.script(reply.text('still not JSON'));

    const settling = sut.settle(context, step, [...asked, { role: 'assistant', content: 'Paris' }], 1, activityScope());

    await expect(settling).rejects.toBeInstanceOf(StepError);
    await expect(settling).rejects.toMatchObject({ type: 'InvalidStructuredOutput', message: expect.stringContaining('2 attempts') });
    expect(setup.model.requests).toHaveLength(1);
    expect((await setup.rows.messages(context.instance_uuid)).map((message) => message.content)).toEqual([
      ...asked.map((message) => message.content),
      'Paris',
      expect.any(String),
      'still not JSON',
    ]);
  });

  it('fails at the first answer that breaks the schema when no correction is allowed, asking nothing', async () => {
    const strict = { ...step, max_correction_attempts: 0 };
    const context = await recordedContext();

    const settling = sut.settle(context, strict, [...asked, { role: 'assistant', content: '{"town":"Paris"}' }], 1, activityScope());

    await expect(settling).rejects.toMatchObject({
      type: 'InvalidStructuredOutput',
      message: `step "${step.name}" gave no answer following its output_schema in 1 attempt: city is required`,
    });
    expect(setup.model.requests).toHaveLength(0);
  });
});
