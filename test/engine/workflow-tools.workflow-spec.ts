// Workflow tools: an agent's call of a tool its start names a workflow tool is a child run (recorded by an
// activity one level deeper, run as the same run workflow `run-<uuid>`, its end read back as the call's
// answer at the call's position); other tools still go through callTool. A call answered before starts no
// child, and cancelling the parent cancels a child in flight. In a graph whose agent hands its calls to a
// tool executor, the executor runs them the same way, the answers going into the caller's transcript.
import { randomUUID } from 'node:crypto';
import { CancelledFailure } from '@temporalio/common';
import type { AgentTurnResult, PreparedRun, ToolCallRequest } from '@app/contracts';
import { agentStep, chainRun, edge, graphRun, llmStep, output, toolExecutorStep } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd, untilCancelled, type Handlers } from './support/fake-activities';

describe('Run workflow: workflow tools', () => {
  const engine = useEngine();
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const call = (id: string, name: string): ToolCallRequest => ({ id, name, arguments: '{"topic":"x"}' });
  const workflowUuid = randomUUID();
  const childRun = (uuid: string, steps = [llmStep('child step')]): PreparedRun => ({
    ...chainRun(steps, { heartbeat_timeout_seconds: 2 }),
    run_uuid: uuid,
    depth: 1,
  });
  const answered = { status: 'completed' as const, summary: 'ok', size_bytes: 2 };

  /** An agent whose first turn calls the workflow tool `summarise` twice and `plain` once, and whose second answers. */
  function agentCalling(handlers: Handlers): Handlers {
    const turns: AgentTurnResult[] = [
      { tool_calls: [call('a', 'summarise'), call('b', 'plain'), call('c', 'summarise')], conversation_length: 3, usage },
      { tool_calls: [], conversation_length: 7, usage },
    ];
    return {
      ...runEnd(),
      startAgentStep: async () => ({
        tools: [],
        conversation_length: 2,
        local_tools: ['plain'],
        workflow_tools: { summarise: workflowUuid },
      }),
      agentTurn: async () => turns.shift()!,
      callTool: async () => answered,
      completeAgentStep: async () => output(),
      ...handlers,
    };
  }

  it('runs each call of a workflow tool as a child run one level deeper, its end the answer at the call’s position', async () => {
    const run = chainRun([agentStep('agent', { tools: [`workflow:${workflowUuid}`, 'plain'] })]);
    const fake = new FakeActivities(
      agentCalling({
        startWorkflowTool: async () => ({ child: childRun(randomUUID()), audit_attempt: 1 }),
        runLlmStep: llmAnswers({ 'child step': () => output() }),
        completeWorkflowTool: async () => answered,
      }),
    );

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const starts = fake.inputsOf('startWorkflowTool');
    expect(starts.map(({ call: made, position, workflow_uuid, depth }) => [made.id, position, workflow_uuid, depth])).toEqual([
      ['a', 3, workflowUuid, 1],
      ['c', 5, workflowUuid, 1],
    ]);
    expect(fake.inputsOf('callTool').map(({ call: made, position }) => [made.id, position])).toEqual([['b', 4]]);
    const children = fake.inputsOf('runLlmStep').map((input) => input.run_uuid);
    expect(children).toHaveLength(2);
    expect(new Set(children).size).toBe(2);
    expect(
      fake.inputsOf('completeWorkflowTool').map(({ call: made, position, child_run_uuid }) => [made.id, position, child_run_uuid]),
    ).toEqual([
      ['a', 3, children[0]],
      ['c', 5, children[1]],
    ]);
    // Each child ends its own run before the parent's next turn.
    expect(fake.inputsOf('finishRun').map((input) => input.run_uuid)).toEqual([...children, run.run_uuid]);
    expect(fake.inputsOf('agentTurn').map(({ conversation_length }) => conversation_length)).toEqual([2, 6]);
  });

  it('starts no child for a call answered before (or refused at its start)', async () => {
    const fake = new FakeActivities(agentCalling({ startWorkflowTool: async () => ({ answered }) }));

    const sut = await engine.start(chainRun([agentStep('agent', { tools: [`workflow:${workflowUuid}`, 'plain'] })]), fake);

    await expect(sut.result()).resolves.toMatchObject({ status: 'completed' });
    expect(fake.inputsOf('startWorkflowTool')).toHaveLength(2);
    expect(fake.inputsOf('completeWorkflowTool')).toHaveLength(0);
    expect(fake.inputsOf('runLlmStep')).toHaveLength(0);
  });

  it('cancelling the parent cancels the child in flight, which closes its rows before the parent ends', async () => {
    const run = chainRun([agentStep('agent', { tools: [`workflow:${workflowUuid}`, 'plain'] })]);
    const fake = new FakeActivities(
      agentCalling({
        startWorkflowTool: async () => ({
          child: childRun(randomUUID(), [llmStep('child step', { execution: 'queued' })]),
          audit_attempt: 1,
        }),
        runLlmStep: llmAnswers({ 'child step': () => untilCancelled() }),
      }),
    );

    const sut = await engine.start(run, fake);
    await fake.called('runLlmStep');
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    const child = fake.inputsOf('runLlmStep')[0].run_uuid;
    expect(fake.inputsOf('finishRun').map(({ run_uuid, status }) => [run_uuid, status])).toEqual([
      [child, 'cancelled'],
      [run.run_uuid, 'cancelled'],
    ]);
    expect(fake.inputsOf('completeWorkflowTool')).toHaveLength(0);
  });

  it('a graph’s tool executor runs its caller’s workflow tool calls as child runs of its own, answered in the caller’s transcript', async () => {
    const agent = agentStep('agent', { tools: [`workflow:${workflowUuid}`, 'plain'] });
    const tools = toolExecutorStep('tools');
    const run = graphRun([agent, tools], { edges: [edge(agent, tools, { condition_value: 'tool_executor' })] });
    const turns: AgentTurnResult[] = [
      { tool_calls: [call('a', 'summarise'), call('b', 'plain')], conversation_length: 3, usage },
      { tool_calls: [call('c', 'summarise')], conversation_length: 6, usage },
      { tool_calls: [], conversation_length: 8, usage },
    ];
    const fake = new FakeActivities({
      ...runEnd(),
      startAgentStep: async () => ({ tools: [], conversation_length: 2, workflow_tools: { summarise: workflowUuid } }),
      continueAgentStep: async ({ from }) => ({
        tools: [],
        conversation_length: from.conversation_length,
        workflow_tools: { summarise: workflowUuid },
      }),
      agentTurn: async () => turns.shift()!,
      handOffToolCalls: async () => output(),
      startToolExecutor: async () => undefined,
      callTool: async () => answered,
      completeToolExecutor: async () => output(),
      startWorkflowTool: async () => ({ child: childRun(randomUUID()), audit_attempt: 1 }),
      runLlmStep: llmAnswers({ 'child step': () => output() }),
      completeWorkflowTool: async () => answered,
      completeAgentStep: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const callers = [...fake.inputsOf('startAgentStep'), ...fake.inputsOf('continueAgentStep')].map((input) => input.instance_uuid);
    const executions = fake.inputsOf('startToolExecutor').map((input) => input.instance_uuid);
    expect(executions).toHaveLength(2);
    const starts = fake.inputsOf('startWorkflowTool');
    expect(
      starts.map((input) => [input.call.id, input.position, input.conversation_uuid, input.instance_uuid, input.parent_step_uuid]),
    ).toEqual([
      ['a', 3, callers[0], executions[0], tools.uuid],
      ['c', 6, callers[1], executions[1], tools.uuid],
    ]);
    expect(starts.every((input) => input.step.uuid === agent.uuid && input.depth === 1)).toBe(true);
    expect(fake.inputsOf('callTool').map((input) => [input.call.id, input.position, input.conversation_uuid])).toEqual([
      ['b', 4, callers[0]],
    ]);
    const children = fake.inputsOf('runLlmStep').map((input) => input.run_uuid);
    expect(fake.inputsOf('completeWorkflowTool').map((input) => [input.call.id, input.child_run_uuid, input.conversation_uuid])).toEqual([
      ['a', children[0], callers[0]],
      ['c', children[1], callers[1]],
    ]);
    // The caller goes on after each hand-off with the answers in its transcript.
    expect(fake.inputsOf('continueAgentStep').map(({ from }) => from)).toEqual([
      { instance_uuid: callers[0], conversation_length: 5 },
      { instance_uuid: callers[1], conversation_length: 7 },
    ]);
  });
});
