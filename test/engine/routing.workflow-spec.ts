// Where a run goes: a chain as its graph of ALWAYS edges, a graph's routes (a router's choice, END, data
// conditions, ALWAYS), its waves (parallel branches, a step reached twice in one wave runs once) and a
// failed branch that leaves the others going; a tool executor's three routing tiers.
import { ApplicationFailure } from '@temporalio/common';
import type { AgentTurnResult, StepDefinition } from '@app/contracts';
import { agentStep, chainRun, edge, graphRun, llmStep, output, rowOf, stopCheckerStep, toolExecutorStep } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, recorded, runEnd } from './support/fake-activities';

describe('Run workflow: routing', () => {
  const engine = useEngine();
  const ran = (fake: FakeActivities) => fake.inputsOf('runLlmStep').map((input) => input.step.name);
  const closed = (fake: FakeActivities) => fake.inputsOf('closeGraphStep').map(({ instance_uuid, failed }) => ({ instance_uuid, failed }));
  const rowsOf = (run: ReturnType<typeof graphRun>, ...steps: StepDefinition[]) =>
    steps.map((step) => ({ instance_uuid: rowOf(run, step), failed: false }));

  it('walks a chain in order, each step on its own row, $previous_output the step before (and the output it handed on)', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((name) => llmStep(name));
    const run = chainRun([a, b, c]);
    const [ofA, ofB] = [output(), output()];
    const fake = new FakeActivities({
      runLlmStep: llmAnswers({ a: () => ofA, b: () => ofB, c: () => output() }),
      finishRun: recorded,
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(
      fake.inputsOf('runLlmStep').map(({ step, instance_uuid, previous_step_uuid, previous_output_id, execution }) => ({
        step: step.name,
        instance_uuid,
        previous_step_uuid,
        previous_output_id,
        execution,
      })),
    ).toEqual([
      { step: 'a', instance_uuid: rowOf(run, a), previous_step_uuid: null, previous_output_id: undefined, execution: undefined },
      { step: 'b', instance_uuid: rowOf(run, b), previous_step_uuid: a.uuid, previous_output_id: ofA.output_id, execution: undefined },
      { step: 'c', instance_uuid: rowOf(run, c), previous_step_uuid: b.uuid, previous_output_id: ofB.output_id, execution: undefined },
    ]);
    expect(fake.inputsOf('finishRun')).toEqual([{ run_uuid: run.run_uuid, status: 'completed', error_message: null }]);
  });

  it('ends a chain stopped by its stop checker, the steps after it never run', async () => {
    const a = llmStep('a');
    const run = chainRun([a, stopCheckerStep('check', a), llmStep('never')]);
    const fake = new FakeActivities({
      runLlmStep: llmAnswers({ a: () => output() }),
      runStopChecker: async () => ({ stopped: true, reason: 'nothing to do' }),
      finishRun: recorded,
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'stopped', error_message: 'nothing to do' });
    expect(ran(fake)).toEqual(['a']);
  });

  describe('a router step', () => {
    const router = llmStep('router');
    const [writer, reviewer, log] = ['writer', 'reviewer', 'log'].map((name) => llmStep(name));
    const graph = {
      edges: [
        edge(router, writer, { condition_value: 'Writer' }),
        edge(router, reviewer, { condition_value: 'Reviewer' }),
        edge(router, null, { condition_value: 'END' }),
        edge(router, log),
      ],
    };
    const routedTo = (route: string) =>
      new FakeActivities({
        ...runEnd(),
        runLlmStep: llmAnswers({ router: () => output({ route }), writer: () => output(), reviewer: () => output(), log: () => output() }),
      });

    it('is offered its CONDITIONAL edges’ values; its choice (any case) and every ALWAYS edge fire', async () => {
      const run = graphRun([router, writer, reviewer, log], graph);
      const fake = routedTo('WRITER');

      const sut = await engine.start(run, fake);

      await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
      expect(fake.inputsOf('runLlmStep')[0].route_choices).toEqual(['Writer', 'Reviewer', 'END']);
      // writer and log run in one wave, in parallel: in either order.
      expect(ran(fake).sort()).toEqual(['log', 'router', 'writer']);
      expect(closed(fake)).toEqual(rowsOf(run, router, writer, log));
    });

    it('choosing END ends its branch: only the ALWAYS edge fires', async () => {
      const run = graphRun([router, writer, reviewer, log], graph);
      const fake = routedTo('END');

      const sut = await engine.start(run, fake);

      await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
      expect(ran(fake)).toEqual(['router', 'log']);
    });
  });

  it('takes the edges whose data conditions held, checked by an activity; an edge with a value and conditions needs both', async () => {
    const a = llmStep('a');
    const [high, low, both] = ['high', 'low', 'both'].map((name) => llmStep(name));
    const toHigh = edge(a, high, { conditions: { path: '$.score', operator: 'greater_than', value: 5 } });
    const toLow = edge(a, low, { conditions: { path: '$.score', operator: 'less_than', value: 5 } });
    const toBoth = edge(a, both, { condition_value: 'Both', conditions: { path: '$.ok', operator: 'equals', value: true } });
    const run = graphRun([a, high, low, both], { edges: [toHigh, toLow, toBoth] });
    const answer = output();
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ a: () => answer, high: () => output() }),
      evaluateEdgeConditions: async () => [toHigh.uuid, toBoth.uuid],
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('evaluateEdgeConditions')).toEqual([
      {
        user_id: run.user_id,
        output_id: answer.output_id,
        edges: [toHigh, toLow, toBoth].map(({ uuid, conditions }) => ({ uuid, conditions })),
      },
    ]);
    expect(ran(fake)).toEqual(['a', 'high']);
  });

  describe('waves', () => {
    it('runs a wave’s branches in parallel; a step two branches reach in the same wave runs once', async () => {
      const [a, b, c, join] = ['a', 'b', 'c', 'join'].map((name) => llmStep(name));
      const run = graphRun([a, b, c, join], { edges: [edge(a, b), edge(a, c), edge(b, join), edge(c, join)] });
      const fake: FakeActivities = new FakeActivities({
        ...runEnd(),
        // b and c each wait until the other has started: they end only if they run at once.
        runLlmStep: llmAnswers({
          a: () => output(),
          b: async () => (await fake.called('runLlmStep', 3), output()),
          c: async () => (await fake.called('runLlmStep', 3), output()),
          join: () => output(),
        }),
      });

      const sut = await engine.start(run, fake);

      await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
      expect(ran(fake).sort()).toEqual(['a', 'b', 'c', 'join']);
      expect(ran(fake).at(-1)).toBe('join');
    });

    it('runs a step again when branches reach it in different waves, each execution on a row of its own beneath the step’s', async () => {
      const [a, b, c, x, join] = ['a', 'b', 'c', 'x', 'join'].map((name) => llmStep(name));
      const run = graphRun([a, b, c, x, join], { edges: [edge(a, b), edge(a, c), edge(b, join), edge(c, x), edge(x, join)] });
      const fake = new FakeActivities({
        ...runEnd(),
        runLlmStep: llmAnswers(Object.fromEntries(['a', 'b', 'c', 'x', 'join'].map((name) => [name, () => output()]))),
      });

      const sut = await engine.start(run, fake);

      await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
      const joins = fake.inputsOf('runLlmStep').filter((input) => input.step.name === 'join');
      expect(joins.map(({ previous_step_uuid, execution }) => ({ previous_step_uuid, execution }))).toEqual([
        { previous_step_uuid: b.uuid, execution: { parent_instance_uuid: rowOf(run, join), index: 0 } },
        { previous_step_uuid: x.uuid, execution: { parent_instance_uuid: rowOf(run, join), index: 1 } },
      ]);
      expect(new Set(joins.map((input) => input.instance_uuid)).size).toBe(2);
      expect(closed(fake)).toEqual(rowsOf(run, a, b, c, join, x));
    });

    it('keeps a failed branch’s error on its execution while the others go on: a partial success', async () => {
      const [a, bad, c, d] = ['a', 'bad', 'c', 'd'].map((name) => llmStep(name));
      const run = graphRun([a, bad, c, d], { edges: [edge(a, bad), edge(a, c), edge(c, d), edge(bad, d)] });
      const fake = new FakeActivities({
        ...runEnd(),
        runLlmStep: llmAnswers({
          a: () => output(),
          bad: () => {
            throw ApplicationFailure.nonRetryable('the model refused');
          },
          c: () => output(),
          d: () => output(),
        }),
      });

      const sut = await engine.start(run, fake);

      await expect(sut.failure()).resolves.toMatchObject({ type: 'StepFailed', message: 'Step "bad" failed: the model refused' });
      const badRun = fake.inputsOf('runLlmStep').find((input) => input.step.name === 'bad')!;
      expect(fake.inputsOf('failStep')).toEqual([{ instance_uuid: badRun.instance_uuid, error_message: 'the model refused' }]);
      expect(ran(fake).sort()).toEqual(['a', 'bad', 'c', 'd']);
      expect(closed(fake)).toEqual([...rowsOf(run, a), { instance_uuid: rowOf(run, bad), failed: true }, ...rowsOf(run, c, d)]);
      expect(fake.inputsOf('finishRun')).toEqual([
        { run_uuid: run.run_uuid, status: 'partial_success', error_message: 'Step "bad" failed: the model refused' },
      ]);
    });
  });

  it('routes after a tool executor by its tiers: the edge named after the tool that ran, else back to the calling agent', async () => {
    const agent = agentStep('agent');
    const tools = toolExecutorStep('tools');
    const research = llmStep('research');
    const run = graphRun([agent, tools, research], {
      edges: [edge(agent, tools, { condition_value: 'tool_executor' }), edge(tools, research, { condition_value: 'search' })],
    });
    const call = (name: string) => ({ id: `call-${name}`, name, arguments: '{}' });
    const turns: AgentTurnResult[] = [
      { tool_calls: [call('lookup')], conversation_length: 2, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
      { tool_calls: [call('search')], conversation_length: 4, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
    ];
    const fake = new FakeActivities({
      ...runEnd(),
      startAgentStep: async () => ({ tools: [], conversation_length: 1 }),
      continueAgentStep: async ({ from }) => ({ tools: [], conversation_length: from.conversation_length }),
      agentTurn: async () => turns.shift()!,
      handOffToolCalls: async () => output(),
      startToolExecutor: recorded,
      callTool: async () => ({ status: 'completed', summary: 'ok', size_bytes: 2 }),
      completeToolExecutor: async () => output(),
      runLlmStep: llmAnswers({ research: () => output() }),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const [first] = fake.inputsOf('startAgentStep');
    // lookup has no edge of its own and the executor no ALWAYS edge: the caller goes on with its conversation.
    expect(fake.inputsOf('continueAgentStep').map(({ from }) => from)).toEqual([
      { instance_uuid: first.instance_uuid, conversation_length: 3 },
    ]);
    expect(
      fake.inputsOf('callTool').map(({ call, position, conversation_uuid }) => ({ tool: call.name, position, conversation_uuid })),
    ).toEqual([
      { tool: 'lookup', position: 2, conversation_uuid: first.instance_uuid },
      { tool: 'search', position: 4, conversation_uuid: fake.inputsOf('continueAgentStep')[0].instance_uuid },
    ]);
    expect(ran(fake)).toEqual(['research']);
    expect(fake.inputsOf('runLlmStep')[0].previous_step_uuid).toBe(tools.uuid);
  });
});
