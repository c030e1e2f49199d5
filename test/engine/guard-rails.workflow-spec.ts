// A graph's guard rails, kept by the workflow so a crashed worker cannot skip them: max_steps and
// repeated input before each execution, timeout_seconds between waves (waits for people left out), and a
// human hand-off step that asks a person instead of failing the run.
import { HUMAN_INPUT_UPDATE, type HumanInputArgs, type StepDefinition } from '@app/contracts';
import { edge, graphRun, humanStep, llmStep, output, rowOf } from './support/definitions';
import { useEngine, type RunUnderTest } from './support/engine';
import { FakeActivities, llmAnswers, recorded, runEnd } from './support/fake-activities';

describe('Run workflow: guard rails', () => {
  const engine = useEngine();
  const ran = (fake: FakeActivities) => fake.inputsOf('runLlmStep').map((input) => input.step.name);
  const cycle = () => {
    const [a, b] = [llmStep('a'), llmStep('b')];
    return { a, b, edges: [edge(a, b), edge(b, a)] };
  };
  const answering = (...steps: StepDefinition[]) => llmAnswers(Object.fromEntries(steps.map((step) => [step.name, () => output()])));

  it('max_steps: a cycle stops at its limit of executions, the run failed with the guard rail’s message', async () => {
    const { a, b, edges } = cycle();
    const run = graphRun([a, b], { edges, max_steps: 3 });
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: answering(a, b) });

    const sut = await engine.start(run, fake);

    const message = 'Guard max_steps reached: the run made 3 step executions without ending';
    await expect(sut.failure()).resolves.toMatchObject({ type: 'MaxStepsReached', message });
    expect(ran(fake)).toEqual(['a', 'b', 'a']);
    expect(fake.inputsOf('closeGraphStep').map((input) => input.instance_uuid)).toEqual([rowOf(run, a), rowOf(run, b)]);
    // The rail goes with the run's end as data: the step whose execution it refused (b's second).
    expect(fake.inputsOf('finishRun')).toEqual([
      {
        run_uuid: run.run_uuid,
        status: 'failed',
        error_message: message,
        guard_rail: { rail: 'max_steps', step_uuid: b.uuid, step_name: 'b' },
      },
    ]);
  });

  it('repeated input: a step reached again while no step’s output changed is refused', async () => {
    const { a, b, edges } = cycle();
    const run = graphRun([a, b], { edges });
    // The same answers again: b's second activation would see nothing new.
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ a: () => output({ digest: 'same a' }), b: () => output({ digest: 'same b' }) }),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.failure()).resolves.toMatchObject({
      type: 'RepeatedInput',
      message: expect.stringContaining('step "b" was reached again'),
    });
    expect(ran(fake)).toEqual(['a', 'b', 'a']);
    expect(fake.inputsOf('finishRun')[0].guard_rail).toEqual({ rail: 'repeated_input', step_uuid: b.uuid, step_name: 'b' });
  });

  it('timeout_seconds: a walk with steps left after its time ends between waves', async () => {
    const [slow, next] = [llmStep('slow'), llmStep('next')];
    const run = graphRun([slow, next], { edges: [edge(slow, next)], timeout_seconds: 1 });
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ slow: async () => (await sleep(1_500), output()) }) });

    const sut = await engine.start(run, fake);

    await expect(sut.failure()).resolves.toMatchObject({
      type: 'TimeoutReached',
      message: 'Guard timeout_seconds reached: the run walked for more than 1 s without ending',
    });
    expect(ran(fake)).toEqual(['slow']);
    expect(fake.inputsOf('finishRun')[0].guard_rail).toEqual({ rail: 'timeout_seconds', step_uuid: null, step_name: null });
  });

  it('timeout_seconds leaves out the time a person took to answer', async () => {
    const [first, last] = [llmStep('first'), llmStep('last')];
    const ask = humanStep('ask');
    const run = graphRun([first, ask, last], { edges: [edge(first, ask), edge(ask, last)], timeout_seconds: 2 });
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: answering(first, last),
      awaitHumanInput: recorded,
      answerHumanInput: async () => output(),
    });

    const sut = await engine.start(run, fake);
    await fake.called('awaitHumanInput');
    await sleep(2_500); // longer than the walk may take
    await answer(sut.handle, { step_uuid: ask.uuid, input: 'go on' });

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(ran(fake)).toEqual(['first', 'last']);
  });

  it('with a human hand-off step, a guard rail asks the person why instead of failing, and the walk goes on from their answer', async () => {
    const { a, b, edges } = cycle();
    const [person, after] = [humanStep('person'), llmStep('after')];
    const run = graphRun([a, b, person, after], {
      edges: [...edges, edge(person, after)],
      max_steps: 2,
      human_handoff_step_uuid: person.uuid,
    });
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: answering(a, b, after),
      awaitHumanInput: recorded,
      answerHumanInput: async () => output(),
    });

    const sut = await engine.start(run, fake);
    await fake.called('awaitHumanInput');
    await answer(sut.handle, { step_uuid: person.uuid, input: { decision: 'stop the cycle' } });

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('awaitHumanInput')).toEqual([
      expect.objectContaining({
        reason: 'Guard max_steps reached: the run made 2 step executions without ending',
        guard_rail: { rail: 'max_steps', step_uuid: a.uuid, step_name: 'a' },
        previous_step_uuid: null,
      }),
    ]);
    expect(fake.inputsOf('answerHumanInput').map((input) => input.input)).toEqual([{ decision: 'stop the cycle' }]);
    // The guard rails count again from the hand-off: person and after are its first two executions.
    expect(ran(fake)).toEqual(['a', 'b', 'after']);
    expect(fake.inputsOf('finishRun')).toEqual([{ run_uuid: run.run_uuid, status: 'completed', error_message: null }]);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const answer = (handle: RunUnderTest['handle'], args: HumanInputArgs) => handle.executeUpdate(HUMAN_INPUT_UPDATE, { args: [args] });
