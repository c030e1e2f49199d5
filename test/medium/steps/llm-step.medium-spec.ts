import type { CustomLlmStep, StepContext } from '@app/contracts';
import type { NewRun } from '@app/persistence';
import { ModelCallError } from '@app/providers';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { countStatements } from '../support/statements';
import { modelCall } from '../runs/run-fixtures';
import { setUpStepServices } from './step-services.setup';

describe(LlmStepService.name, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: LlmStepService;

  beforeAll(async () => {
    setup = await setUpStepServices();
    sut = setup.llm;
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  async function recordedRun(step: CustomLlmStep): Promise<NewRun> {
    const run = newRun(newUserId(), workflowDefinition([step]), { topic: 'tides' });
    await setup.runs.create(run);
    return run;
  }

  it('asks the model with the trigger data in the prompt, and stores the call, the output and the tokens', async () => {
    const step = llmStep({ system_prompt: 'Summarise <<trigger_output>>' });
    const run = await recordedRun(step);
    setup.model.script(reply.text('The tides turn.', { usage: { prompt_tokens: 12, completion_tokens: 4 } }));

    const { ref } = await sut.run(stepContext(run, 0), step, activityScope());

    expect(setup.model.requests[0].body.messages[0].content).toContain('tides');
    expect(await setup.rows.modelCalls(run.steps[0].uuid)).toEqual([
      expect.objectContaining({ turn: 1, attempt: 1, status: 'completed', prompt_tokens: 12, total_tokens: 16 }),
    ]);
    expect(await setup.rows.step(run.steps[0].uuid)).toMatchObject({
      status: 'completed',
      output_id: ref.output_id,
      attempts: 1,
      total_tokens: 16,
    });
    expect(await setup.rows.outputData(ref.output_id)).toBe('The tides turn.');
  });

  it('records the canonical hash of what it asked: the same prompt in another run gives the same hash, another prompt another', async () => {
    const step = llmStep({ system_prompt: 'Summarise <<trigger_output>>' });
    const reworded = { ...step, system_prompt: 'Shorten <<trigger_output>>' };
    const runs: [NewRun, CustomLlmStep][] = [];
    for (const asked of [step, step, reworded]) runs.push([await recordedRun(asked), asked]);
    setup.model.script(reply.text('a'), reply.text('b'), reply.text('c'));

    for (const [run, asked] of runs) await sut.run(stepContext(run, 0), asked, activityScope());

    const [[hash], [again], [other]] = await Promise.all(runs.map(([run]) => setup.rows.requestHashes(run.steps[0].uuid)));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(again).toBe(hash);
    expect(other).not.toBe(hash);
  });

  it('answers a retried activity with the committed output instead of calling the model again', async () => {
    const step = llmStep();
    const run = await recordedRun(step);
    setup.model.script(reply.json({ done: true }));
    const first = await sut.run(stepContext(run, 0), step, activityScope(1));

    const retried = await sut.run(stepContext(run, 0), step, activityScope(2));

    expect(retried).toEqual(first);
    expect(setup.model.requests).toHaveLength(1);
    expect(await setup.rows.modelCalls(run.steps[0].uuid)).toHaveLength(1);
  });

  it('audits the call of an attempt whose worker died as lost, and asks again under the next attempt number', async () => {
    const step = llmStep();
    const run = await recordedRun(step);
    const instance = run.steps[0].uuid;
    // What the dead worker's attempt wrote: the step started, its call running.
    await setup.steps.startStepWithCall(instance, {}, { list: [], apart: false }, modelCall(run, instance, { status: 'running' }));
    setup.model.script(reply.text('asked again'));

    const { ref } = await sut.run(stepContext(run, 0), step, activityScope(1)); // a local activity run again counts from 1 again

    expect(await setup.rows.modelCalls(instance)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringMatching(/^Lost/) }),
      expect.objectContaining({ attempt: 2, status: 'completed', total_tokens: 15 }),
    ]);
    expect(await setup.rows.step(instance)).toMatchObject({ status: 'completed', attempts: 2, output_id: ref.output_id, total_tokens: 15 });
  });

  it('audits a failed model call, and the retry that succeeds as the next attempt', async () => {
    const step = llmStep();
    const run = await recordedRun(step);
    setup.model.script(reply.error(500), reply.text('second time lucky'));

    const failed = sut.run(stepContext(run, 0), step, activityScope(1));
    await expect(failed).rejects.toBeInstanceOf(ModelCallError);
    await expect(failed).rejects.toMatchObject({ retryable: true });
    const { ref } = await sut.run(stepContext(run, 0), step, activityScope(2));

    expect(await setup.rows.modelCalls(run.steps[0].uuid)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.any(String) }),
      expect.objectContaining({ attempt: 2, status: 'completed' }),
    ]);
    expect(await setup.rows.step(run.steps[0].uuid)).toMatchObject({ status: 'completed', attempts: 2, output_id: ref.output_id });
  });

  it('sends an answer that breaks the output_schema back once, and stores the corrected one', async () => {
    const step = llmStep({ output_schema: { type: 'object', required: ['score'], properties: { score: { type: 'number' } } } });
    const run = await recordedRun(step);
    setup.model.script(reply.json({ score: 'seven' }), reply.json({ score: 7 }));

    const { ref } = await sut.run(stepContext(run, 0), step, activityScope());

    const correction = setup.model.requests[1].body.messages.at(-1);
    expect(correction).toMatchObject({ role: 'user', content: expect.stringContaining('score') });
    expect(setup.model.requests[0].body.response_format).toMatchObject({ type: 'json_schema' });
    expect(await setup.rows.modelCalls(run.steps[0].uuid)).toEqual([
      expect.objectContaining({ turn: 1, status: 'completed' }),
      expect.objectContaining({ turn: 2, status: 'completed' }),
    ]);
    expect(await setup.rows.outputData(ref.output_id)).toEqual({ score: 7 });
  });
  describe('what a chain step reads back (issue #32)', () => {
    const outputReads = (sent: string[]) => sent.filter((sql) => /^\s*SELECT[\s\S]*\bstep_outputs\b/i.test(sql)).length;

    it('reads the trigger output once a run, and takes the output the step before it stored on this worker instead of reading it', async () => {
      const first = llmStep({ system_prompt: 'Summarise <<trigger_output>>' });
      // No placeholder: the previous output is the user message.
      const second = llmStep({ system_prompt: 'Shorten it' });
      const third = llmStep({ system_prompt: 'Translate <<trigger_output>>' });
      const run = newRun(newUserId(), workflowDefinition([first, second, third]), { topic: 'tides' });
      await setup.runs.create(run);
      setup.model.script(reply.text('The tides turn twice a day.'), reply.text('Tides turn.'), reply.text('Les marées.'));
      const ran = (context: StepContext, step: CustomLlmStep) =>
        countStatements(setup.db, setup.oneTrip, () => sut.run(context, step, activityScope()));

      const one = await ran(stepContext(run, 0), first);
      const two = await ran({ ...stepContext(run, 1), previous_output_id: one.result.ref.output_id }, second);
      const three = await ran({ ...stepContext(run, 2), previous_output_id: two.result.ref.output_id }, third);

      expect([one, two, three].map(({ statements }) => outputReads(statements.sent))).toEqual([1, 0, 0]);
      const [, asked, again] = setup.model.requests.map((request) => request.body.messages);
      expect(asked[1].content).toContain('The tides turn twice a day.');
      expect(again[0].content).toContain('tides');
    });

    it('reads the previous output from MySQL when this worker did not store it', async () => {
      const first = llmStep();
      const second = llmStep({ system_prompt: 'Shorten it' });
      const run = newRun(newUserId(), workflowDefinition([first, second]), { topic: 'tides' });
      await setup.runs.create(run);
      setup.model.script(reply.text('Stored by another worker.'), reply.text('Short.'));
      const stored = await sut.run(stepContext(run, 0), first, activityScope());
      // Another worker's step: what this one kept is not what the walk names.
      const context = { ...stepContext(run, 1), previous_output_id: 'an-output-this-worker-never-stored' };

      const { statements } = await countStatements(setup.db, setup.oneTrip, () => sut.run(context, second, activityScope()));

      expect(outputReads(statements.sent)).toBe(1);
      expect(setup.model.requests[1].body.messages[1].content).toContain('Stored by another worker.');
      expect(stored.ref.output_id).not.toBe(context.previous_output_id);
    });
  });
});
