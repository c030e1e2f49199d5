// A chain's LLM steps that follow one another run in the first one's local activity (issue #32): the walk takes
// the outputs it hands back, and a step that failed there is failed or run again as its own activity would be.
import type { ChainStepAhead, CustomLlmStep } from '@app/contracts';
import { chainRun, graphRun, edge, llmStep, output, rowOf, stopCheckerStep } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd } from './support/fake-activities';

describe('Run workflow: a chain’s LLM steps in one activity', () => {
  const engine = useEngine();

  /** Each runLlmStep call: its step, the steps it was asked to run on, and where it ran. */
  const llmCalls = (fake: FakeActivities) =>
    fake.callsTo('runLlmStep').map(({ input, local }) => ({
      step: input.step.name,
      run_on: (input.run_on ?? []).map((ahead: ChainStepAhead) => ahead.step.name),
      local,
    }));

  it('runs the LLM steps after the first in its activity, each on its row, and walks on from their outputs', async () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => llmStep(name));
    const checker = stopCheckerStep('checker', a);
    const run = chainRun([a, b, c, checker, d]);
    const [forB, forC] = [output(), output()];
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ a: () => ({ ...output(), ran_on: [forB, forC] }), d: () => output() }),
      runStopChecker: async () => ({ stopped: false, reason: null }),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(llmCalls(fake)).toEqual([
      { step: 'a', run_on: ['b', 'c'], local: true },
      { step: 'd', run_on: [], local: true },
    ]);
    const [asked] = fake.inputsOf('runLlmStep');
    expect(asked.run_on!.map((ahead) => ahead.instance_uuid)).toEqual([rowOf(run, b), rowOf(run, c)]);
    // The step after them reads c's output: the walk went on from what the activity handed back.
    expect(fake.inputsOf('runStopChecker')).toEqual([
      expect.objectContaining({ previous_step_uuid: c.uuid, previous_output_id: forC.output_id }),
    ]);
  });

  it('runs a step that failed ahead again as its own activity, with the attempts its retry policy has left', async () => {
    const retry_policy = { max_attempts: 3, initial_interval_seconds: 1 };
    const [a, b, c] = [llmStep('a'), llmStep('b', { retry_policy }), llmStep('c')];
    const failed = { message: 'the provider is down', type: 'Model_server', retryable: true };
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ a: () => ({ ...output(), ran_on: [], failed }), b: () => ({ ...output(), ran_on: [output()] }) }),
    });

    const sut = await engine.start(chainRun([a, b, c]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(llmCalls(fake)).toEqual([
      { step: 'a', run_on: ['b', 'c'], local: true },
      { step: 'b', run_on: ['c'], local: true },
    ]);
    expect((fake.inputsOf('runLlmStep')[1].step as CustomLlmStep).retry_policy).toMatchObject({ max_attempts: 2 });
  });

  it('fails a step that failed ahead for good when its error is not retryable, as its own activity would have', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((name) => llmStep(name));
    const run = chainRun([a, b, c]);
    const failed = { message: 'the request is malformed', type: 'Model_bad_request', retryable: false };
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ a: () => ({ ...output(), ran_on: [output()], failed }) }) });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).rejects.toThrow('Step "c" failed: the request is malformed');
    expect(fake.inputsOf('finishRun')).toEqual([
      expect.objectContaining({ status: 'partial_success', error_message: 'Step "c" failed: the request is malformed' }),
    ]);
    expect(llmCalls(fake)).toEqual([{ step: 'a', run_on: ['b', 'c'], local: true }]);
    expect(fake.inputsOf('failStep')).toEqual([{ instance_uuid: rowOf(run, c), error_message: 'the request is malformed' }]);
  });

  it('asks no step to run on past a queued step, nor in a graph, whose branches may run side by side', async () => {
    const queued = llmStep('queued', { execution: 'queued' });
    const [a, c, d] = ['a', 'c', 'd'].map((name) => llmStep(name));
    const answers = llmAnswers(Object.fromEntries(['a', 'queued', 'c', 'd'].map((name) => [name, () => output()])));
    const chain = new FakeActivities({ ...runEnd(), runLlmStep: answers });

    const sut = await engine.start(chainRun([a, queued, c, d]), chain);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(llmCalls(chain)).toEqual([
      { step: 'a', run_on: [], local: true },
      { step: 'queued', run_on: [], local: false },
      { step: 'c', run_on: ['d'], local: true },
      { step: 'd', run_on: [], local: true },
    ]);
    const graph = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ a: () => output(), c: () => output() }) });
    const walked = await engine.start(graphRun([a, c], { edges: [edge(a, c), edge(c, null)] }), graph);
    await expect(walked.result()).resolves.toMatchObject({ status: 'completed' });
    expect(llmCalls(graph).map(({ run_on }) => run_on)).toEqual([[], []]);
  });
});
