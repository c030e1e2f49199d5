// A chain's LLM steps that follow one another run in the first one's local activity (issue #32): the walk takes
// the outputs it hands back, and a step that failed there is failed or run again as its own activity would be.
import type { ChainStepAhead, CustomLlmStep } from '@app/contracts';
import { chainRun, graphRun, edge, llmStep, output, rowOf, stopCheckerStep } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd } from './support/fake-activities';

describe('Run workflow: a chain’s LLM steps in one activity', () => {
  const engine = useEngine();

  /** Each runLlmStep call: its step, the steps it was asked to run on, whether they end the run, and where it ran. */
  const llmCalls = (fake: FakeActivities) =>
    fake.callsTo('runLlmStep').map(({ input, local }) => ({
      step: input.step.name,
      run_on: (input.run_on ?? []).map((ahead: ChainStepAhead) => ahead.step.name),
      ...(input.ends_run ? { ends_run: true } : {}),
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
      { step: 'd', run_on: [], ends_run: true, local: true },
    ]);
    const [asked] = fake.inputsOf('runLlmStep');
    expect(asked.run_on!.map((ahead) => ahead.instance_uuid)).toEqual([rowOf(run, b), rowOf(run, c)]);
    // The step after them reads c's output: the walk went on from what the activity handed back.
    expect(fake.inputsOf('runStopChecker')).toEqual([
      expect.objectContaining({ previous_step_uuid: c.uuid, previous_output_id: forC.output_id }),
    ]);
  });

  it('takes the run’s end as recorded by the activity that ran the chain’s last step: no finishRun of its own', async () => {
    const [a, b] = [llmStep('a'), llmStep('b')];
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ a: () => ({ ...output(), ran_on: [output()], run_ended: true }) }),
    });

    const sut = await engine.start(chainRun([a, b]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(llmCalls(fake)).toEqual([{ step: 'a', run_on: ['b'], ends_run: true, local: true }]);
    expect(fake.callsTo('finishRun')).toEqual([]);
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
      { step: 'a', run_on: ['b', 'c'], ends_run: true, local: true },
      { step: 'b', run_on: ['c'], ends_run: true, local: true },
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
    expect(llmCalls(fake)).toEqual([{ step: 'a', run_on: ['b', 'c'], ends_run: true, local: true }]);
    expect(fake.inputsOf('failStep')).toEqual([{ instance_uuid: rowOf(run, c), error_message: 'the request is malformed' }]);
  });

  it('asks at most 100 steps to run on in one activity (STEPS_AHEAD_MAX), so that its result stays small', async () => {
    const steps = Array.from({ length: 102 }, (_, index) => llmStep(`s${index}`));
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: async ({ run_on }) => ({ ...output(), ran_on: (run_on ?? []).map(() => output()) }),
    });

    const sut = await engine.start(chainRun(steps), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(llmCalls(fake).map(({ step, run_on, ends_run }) => [step, run_on.length, ends_run ?? false])).toEqual([
      ['s0', 100, false],
      ['s101', 0, true],
    ]);
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
      { step: 'c', run_on: ['d'], ends_run: true, local: true },
      { step: 'd', run_on: [], ends_run: true, local: true },
    ]);
    const graph = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ a: () => output(), c: () => output() }) });
    const walked = await engine.start(graphRun([a, c], { edges: [edge(a, c), edge(c, null)] }), graph);
    await expect(walked.result()).resolves.toMatchObject({ status: 'completed' });
    expect(llmCalls(graph).map(({ run_on }) => run_on)).toEqual([[], []]);
  });
});
