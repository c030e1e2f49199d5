// Where an agent's rounds run: in a chain as local activities (its start, model turns, the calls of the tools its
// start names short, its completion), a long tool call queued; every round queued when the step asks it, and
// in a graph, whose branches may run side by side. A cancel reaches a local tool call in flight.
import { CancelledFailure } from '@temporalio/common';
import type { AgentTurnResult, ToolCallRequest } from '@app/contracts';
import { agentStep, chainRun, edge, graphRun, llmStep, output, rowOf } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, runEnd, untilCancelled, type Handlers } from './support/fake-activities';

describe('Run workflow: agent rounds', () => {
  const engine = useEngine();

  const call = (name: string): ToolCallRequest => ({ id: `call-${name}`, name, arguments: '{}' });
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

  /** An agent whose first turn calls `quick` (a short tool) and `slow`, and whose second answers. */
  function twoTurns(): Handlers {
    const turns: AgentTurnResult[] = [
      { tool_calls: [call('quick'), call('slow')], conversation_length: 3, usage },
      { tool_calls: [], conversation_length: 6, usage },
    ];
    return {
      ...runEnd(),
      startAgentStep: async () => ({ tools: [], conversation_length: 2, local_tools: ['quick', 'get_output'] }),
      agentTurn: async () => turns.shift()!,
      callTool: async () => ({ status: 'completed', summary: 'ok', size_bytes: 2 }),
      completeAgentStep: async () => output(),
    };
  }

  /** Each of the agent's activities in order, with where it ran. */
  const rounds = (fake: FakeActivities) =>
    fake.calls
      .filter((made) => ['startAgentStep', 'agentTurn', 'callTool', 'completeAgentStep'].includes(made.name))
      .map((made) => {
        const tool = made.name === 'callTool' ? ` ${(made.input as { call: ToolCallRequest }).call.name}` : '';
        return `${made.name}${tool} ${made.local ? 'local' : 'queued'}`;
      });

  it('runs a chain agent’s start, turns, short tool calls and completion as local activities, a long tool call queued', async () => {
    const agent = agentStep('agent', { tools: ['quick', 'slow'] });
    const fake = new FakeActivities(twoTurns());

    const sut = await engine.start(chainRun([agent]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(rounds(fake)).toEqual([
      'startAgentStep local',
      'agentTurn local',
      'callTool quick local',
      'callTool slow queued',
      'agentTurn local',
      'completeAgentStep local',
    ]);
    expect(fake.inputsOf('callTool').map(({ call, position }) => [call.name, position])).toEqual([
      ['quick', 3],
      ['slow', 4],
    ]);
    expect(fake.inputsOf('agentTurn').map(({ turn, conversation_length }) => [turn, conversation_length])).toEqual([
      [1, 2],
      [2, 5],
    ]);
  });

  it('lets a chain agent’s local turn run its short tool calls itself, the workflow making the rest', async () => {
    const agent = agentStep('agent', { tools: ['quick', 'slow'] });
    const handlers = twoTurns();
    const fake = new FakeActivities({
      ...handlers,
      // The first turn ran `quick` (its answer at 3) and stopped at `slow`, which is not short.
      agentTurn: async (input) => {
        const result = await handlers.agentTurn!(input);
        return result.tool_calls.length ? { ...result, conversation_length: 4, tool_calls_run: 1 } : result;
      },
    });

    const sut = await engine.start(chainRun([agent]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(rounds(fake)).toEqual([
      'startAgentStep local',
      'agentTurn local',
      'callTool slow queued',
      'agentTurn local',
      'completeAgentStep local',
    ]);
    expect(fake.inputsOf('callTool').map(({ call, position }) => [call.name, position])).toEqual([['slow', 4]]);
    expect(fake.inputsOf('agentTurn').map(({ conversation_length, short_tools }) => [conversation_length, short_tools])).toEqual([
      [2, ['quick', 'get_output']],
      [5, ['quick', 'get_output']],
    ]);
  });

  it('lets a chain agent’s rounds of short calls share one local activity: the workflow goes on from the turn it reports', async () => {
    const agent = agentStep('agent', { tools: ['quick'] });
    // The first activity ran turns 1 to 3 (each with its `quick` call), the next one answers.
    const turns: AgentTurnResult[] = [
      { tool_calls: [call('quick')], tool_calls_run: 1, conversation_length: 8, usage, turn: 3 },
      { tool_calls: [], conversation_length: 9, usage, turn: 4 },
    ];
    const fake = new FakeActivities({ ...twoTurns(), agentTurn: async () => turns.shift()! });

    const sut = await engine.start(chainRun([agent]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(rounds(fake)).toEqual(['startAgentStep local', 'agentTurn local', 'agentTurn local', 'completeAgentStep local']);
    expect(fake.inputsOf('agentTurn').map(({ turn, conversation_length, last_turn }) => [turn, conversation_length, last_turn])).toEqual([
      [1, 2, 10],
      [4, 8, 10],
    ]);
    expect(fake.inputsOf('completeAgentStep').map((input) => input.conversation_length)).toEqual([9]);
  });

  it('takes the step’s result from the shared activity that reached the final answer: no completion activity', async () => {
    const agent = agentStep('agent', { tools: ['quick'] });
    const completed = output();
    const fake = new FakeActivities({
      ...twoTurns(),
      agentTurn: async () => ({ tool_calls: [], conversation_length: 9, usage, turn: 4, completed }),
      runLlmStep: async () => output(),
    });

    const sut = await engine.start(chainRun([agent, llmStep('after')]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(rounds(fake)).toEqual(['startAgentStep local', 'agentTurn local']);
    expect(fake.inputsOf('agentTurn').map(({ last_turn, complete }) => [last_turn, complete])).toEqual([[10, true]]);
    // The next step follows the output the activity reported.
    expect(fake.inputsOf('runLlmStep').map((input) => input.previous_output_id)).toEqual([completed.output_id]);
  });

  it('goes on from the turns a chain agent’s start ran on into, asking them for its short tools up to max_iterations', async () => {
    const agent = agentStep('agent', { tools: ['quick', 'slow'], max_iterations: 5 });
    const fake = new FakeActivities({
      ...twoTurns(),
      // The start ran turns 1 and 2; turn 2 asked for the long tool, left to the workflow.
      startAgentStep: async () => ({
        tools: [],
        conversation_length: 2,
        local_tools: ['quick'],
        first_turns: { tool_calls: [call('slow')], tool_calls_run: 0, conversation_length: 5, usage, turn: 2 },
      }),
      agentTurn: async () => ({ tool_calls: [], conversation_length: 7, usage, turn: 3 }),
    });

    const sut = await engine.start(chainRun([agent]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    // The chain's last step: where its start's turns complete it, that activity records the run's end.
    expect(fake.inputsOf('startAgentStep').map((input) => input.turns)).toEqual([{ last_turn: 5, ends_run: true }]);
    expect(rounds(fake)).toEqual(['startAgentStep local', 'callTool slow queued', 'agentTurn local', 'completeAgentStep local']);
    expect(fake.inputsOf('callTool').map(({ position }) => position)).toEqual([5]);
    expect(fake.inputsOf('agentTurn').map(({ turn, conversation_length }) => [turn, conversation_length])).toEqual([[3, 6]]);
  });

  it('takes the run’s end as recorded by the start of the chain’s last agent that its turns completed: no finishRun', async () => {
    const [agent, after] = [agentStep('agent', { tools: ['quick'] }), agentStep('after', { tools: ['quick'] })];
    const completed = output();
    const fake = new FakeActivities({
      ...twoTurns(),
      startAgentStep: async ({ turns }) => ({
        tools: [],
        conversation_length: 2,
        local_tools: ['quick'],
        first_turns: { tool_calls: [], conversation_length: 4, usage, turn: 2, completed },
        ...(turns?.ends_run ? { run_ended: true as const } : {}),
      }),
    });

    const sut = await engine.start(chainRun([agent, after]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('startAgentStep').map(({ step, turns }) => [step.name, turns?.ends_run ?? false])).toEqual([
      ['agent', false],
      ['after', true],
    ]);
    expect(fake.callsTo('finishRun')).toEqual([]);
  });

  it('ends an agent at max_iterations when its shared activity ran up to it', async () => {
    const agent = agentStep('agent', { tools: ['quick'], max_iterations: 3 });
    const fake = new FakeActivities({
      ...twoTurns(),
      agentTurn: async () => ({ tool_calls: [call('quick')], tool_calls_run: 1, conversation_length: 8, usage, turn: 3 }),
      failStep: async () => undefined,
    });

    const sut = await engine.start(chainRun([agent]), fake);

    await expect(sut.failure()).resolves.toMatchObject({ message: expect.stringContaining('reached max_iterations (3)') });
    expect(fake.inputsOf('agentTurn').map(({ turn, last_turn }) => [turn, last_turn])).toEqual([[1, 3]]);
  });

  it('queues every round of an agent that asks execution "queued", and of a graph’s agent', async () => {
    const queued = agentStep('queued', { tools: ['quick', 'slow'], execution: 'queued' });
    const inChain = new FakeActivities(twoTurns());
    await expect((await engine.start(chainRun([queued]), inChain)).result()).resolves.toMatchObject({ status: 'completed' });

    const inGraph = agentStep('in graph', { tools: ['quick', 'slow'] });
    const graphFake = new FakeActivities(twoTurns());
    const graph = graphRun([inGraph], { edges: [edge(inGraph, null)] });
    await expect((await engine.start(graph, graphFake)).result()).resolves.toMatchObject({ status: 'completed' });

    const everyQueued = [
      'startAgentStep queued',
      'agentTurn queued',
      'callTool quick queued',
      'callTool slow queued',
      'agentTurn queued',
      'completeAgentStep queued',
    ];
    expect(rounds(inChain)).toEqual(everyQueued);
    expect(rounds(graphFake)).toEqual(everyQueued);
    // A queued turn runs no tool call itself: each is an activity of its own.
    expect([...inChain.inputsOf('agentTurn'), ...graphFake.inputsOf('agentTurn')].map((input) => input.short_tools)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('cancels a chain agent during a local tool call: the call hears it, the step fails, the run ends cancelled', async () => {
    const agent = agentStep('agent', { tools: ['quick'] });
    const order: string[] = [];
    const fake = new FakeActivities({
      ...twoTurns(),
      callTool: async () => {
        try {
          return await untilCancelled();
        } finally {
          order.push('tool call cancelled');
        }
      },
      failStep: async ({ instance_uuid }) => void order.push(`failStep ${instance_uuid}`),
      finishRun: async ({ status }) => void order.push(`finishRun ${status}`),
    });
    const run = chainRun([agent]);

    // The cancellation reaches the workflow when the task the local call keeps open is renewed: at 80 % of
    // its timeout (8 s with the API's default of 10, 2.4 s here).
    const sut = await engine.start(run, fake, { workflowTaskTimeout: '3 seconds' });
    await fake.called('callTool');
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    expect(fake.callsTo('callTool').map((made) => made.local)).toEqual([true]);
    expect(order).toEqual(['tool call cancelled', `failStep ${rowOf(run, agent)}`, 'finishRun cancelled']);
    expect(fake.callsTo('completeAgentStep')).toEqual([]);
  });
});
