// Continue-as-new keeps each history short: a loop every `iterations_per_execution` iterations, a
// conversation every `turns_per_execution` turns (both inputs, small here). What the next execution
// carries over decides whether the run goes on as if it had never changed execution.
import { SEND_MESSAGE_UPDATE, type SendMessageArgs, type TurnReply } from '@app/contracts';
import { chainRun, edge, graphRun, llmStep, output, rowOf } from './support/definitions';
import { useEngine, type RunUnderTest } from './support/engine';
import { FakeActivities, llmAnswers, recorded, runEnd } from './support/fake-activities';

describe('Run workflow: continue-as-new', () => {
  const engine = useEngine();
  const forEach = (name: string) => llmStep(name, { loop: { type: 'for_each', input_path: '<<trigger_output.items>>' } });
  /** runLlmStep's calls grouped by the workflow execution that made them, in order. */
  const byExecution = (fake: FakeActivities) => {
    const groups = new Map<string, string[]>();
    for (const { input, run_id } of fake.callsTo('runLlmStep'))
      groups.set(run_id, [
        ...(groups.get(run_id) ?? []),
        input.execution && input.step.loop ? `${input.step.name}[${input.execution.index}]` : input.step.name,
      ]);
    return [...groups.values()];
  };

  it('a chain’s loop continues as new every iterations_per_execution iterations, from the next iteration, once', async () => {
    const [before, each, after] = [llmStep('before'), forEach('each'), llmStep('after')];
    const run = chainRun([before, each, after], { iterations_per_execution: 2 });
    const fake = new FakeActivities({
      runLlmStep: llmAnswers({ before: () => output(), each: () => output(), after: () => output() }),
      startLoop: async () => ({ item_count: 5, truncated: false }),
      completeLoop: async () => output(),
      finishRun: recorded,
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(byExecution(fake)).toEqual([
      ['before', 'each[0]', 'each[1]'],
      ['each[2]', 'each[3]'],
      ['each[4]', 'after'],
    ]);
    const iterations = fake.inputsOf('runLlmStep').filter((input) => input.step.name === 'each');
    // Each iteration on a row of its own beneath the step's, $previous_output still the step before the loop.
    expect(new Set(iterations.map((input) => input.instance_uuid)).size).toBe(5);
    expect(
      iterations.every((input) => input.execution?.parent_instance_uuid === rowOf(run, each) && input.previous_step_uuid === before.uuid),
    ).toBe(true);
    expect(fake.inputsOf('startLoop')).toHaveLength(1);
    expect(fake.inputsOf('completeLoop').map(({ iterations, stopped_by }) => ({ iterations, stopped_by }))).toEqual([
      { iterations: 5, stopped_by: 'exhausted' },
    ]);
    expect(fake.inputsOf('finishRun')).toHaveLength(1);
  });

  describe('a graph’s loop', () => {
    // a's two branches end before the loop runs alone (a loop continues as new only as the walk's one branch).
    const graphWithLoop = (maxSteps: number) => {
      const [a, bad, b, each, after] = [llmStep('a'), llmStep('bad'), llmStep('b'), forEach('each'), llmStep('after')];
      const run = graphRun(
        [a, bad, b, each, after],
        { edges: [edge(a, bad), edge(a, b), edge(b, each), edge(each, after)], max_steps: maxSteps },
        { iterations_per_execution: 1 },
      );
      const fake = new FakeActivities({
        ...runEnd(),
        runLlmStep: llmAnswers({
          a: () => output(),
          bad: () => {
            throw new Error('the model refused');
          },
          b: () => output(),
          each: () => output(),
          after: () => output(),
        }),
        startLoop: async () => ({ item_count: 3, truncated: false }),
        completeLoop: async () => output(),
      });
      return { run, fake, steps: { a, bad, b, each, after } };
    };

    it('carries the walk over: its tally (every step’s row closed at the end), its failures and the loop’s execution row', async () => {
      const { run, fake, steps } = graphWithLoop(5);

      const sut = await engine.start(run, fake);

      await expect(sut.failure()).resolves.toMatchObject({ type: 'StepFailed', message: 'Step "bad" failed: the model refused' });
      expect(byExecution(fake).map((names) => names.sort())).toEqual([['a', 'b', 'bad', 'each[0]'], ['each[1]'], ['after', 'each[2]']]);
      const [loopRow] = fake.inputsOf('startLoop').map((input) => input.instance_uuid);
      expect(fake.inputsOf('completeLoop').map(({ instance_uuid, iterations }) => ({ instance_uuid, iterations }))).toEqual([
        { instance_uuid: loopRow, iterations: 3 },
      ]);
      const after = fake.inputsOf('runLlmStep').find((input) => input.step.name === 'after')!;
      expect(after.previous_step_uuid).toBe(steps.each.uuid);
      const lastExecution = fake.callsTo('finishRun')[0].run_id;
      expect(
        fake.callsTo('closeGraphStep').map(({ input, run_id }) => ({ row: input.instance_uuid, failed: input.failed, run_id })),
      ).toEqual(
        [steps.a, steps.bad, steps.b, steps.each, steps.after].map((step) => ({
          row: rowOf(run, step),
          failed: step === steps.bad,
          run_id: lastExecution,
        })),
      );
      // A step of an earlier execution failed: the run keeps its error, and the others' outputs (a partial success).
      expect(fake.inputsOf('finishRun')).toEqual([
        { run_uuid: run.run_uuid, status: 'partial_success', error_message: 'Step "bad" failed: the model refused' },
      ]);
    });

    it('max_steps counts the executions made by earlier executions of the run', async () => {
      const { run, fake } = graphWithLoop(4);

      const sut = await engine.start(run, fake);

      await expect(sut.failure()).resolves.toMatchObject({
        type: 'MaxStepsReached',
        message: 'Guard max_steps reached: the run made 4 step executions without ending',
      });
      expect(byExecution(fake).at(-1)).toEqual(['each[2]']);
    });
  });

  it('a conversation continues as new every turns_per_execution turns, its turns and executions counted on', async () => {
    const reply = llmStep('reply');
    const run = graphRun(
      [reply],
      { edges: [edge(reply, null)], is_conversational: true, idle_timeout_seconds: 1 },
      { turns_per_execution: 2 },
    );
    const fake = new FakeActivities({
      ...runEnd(),
      openConversation: recorded,
      receiveMessage: recorded,
      runLlmStep: llmAnswers({ reply: () => output() }),
      answerTurn: async ({ turn }) => `reply ${turn}`,
    });

    const sut = await engine.start(run, fake);
    await fake.called('openConversation');
    await expect(send(sut, 'one')).resolves.toEqual({ turn: 1, reply: 'reply 1', status: 'awaiting_input' });
    await expect(send(sut, 'two')).resolves.toEqual({ turn: 2, reply: 'reply 2', status: 'awaiting_input' });
    const first = fake.callsTo('answerTurn')[0].run_id;
    const second = await sut.nextExecution(first);
    await expect(send(sut, 'three')).resolves.toEqual({ turn: 3, reply: 'reply 3', status: 'awaiting_input' });

    // No fourth message: the conversation closes after idle_timeout_seconds.
    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: 'Idle timeout: no message within 1 s' });
    expect(fake.callsTo('receiveMessage').map(({ input, run_id }) => ({ turn: input.turn, content: input.content, run_id }))).toEqual([
      { turn: 1, content: 'one', run_id: first },
      { turn: 2, content: 'two', run_id: first },
      { turn: 3, content: 'three', run_id: second },
    ]);
    expect(fake.inputsOf('runLlmStep').map(({ conversation_turn, execution }) => ({ conversation_turn, index: execution?.index }))).toEqual(
      [
        { conversation_turn: 1, index: 0 },
        { conversation_turn: 2, index: 1 },
        { conversation_turn: 3, index: 2 },
      ],
    );
    expect(fake.inputsOf('openConversation')).toHaveLength(1);
    expect(fake.callsTo('closeGraphStep').map(({ input, run_id }) => ({ row: input.instance_uuid, run_id }))).toEqual([
      { row: rowOf(run, reply), run_id: second },
    ]);
  });
});

const send = (sut: RunUnderTest, content: string) =>
  sut.handle.executeUpdate<TurnReply, [SendMessageArgs]>(SEND_MESSAGE_UPDATE, { args: [{ content }] });
