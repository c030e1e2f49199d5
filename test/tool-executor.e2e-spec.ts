// Tool executor steps end to end: an agent hands its tool calls to the tool executor, which
// runs them and routes by the tool's name, else its ALWAYS edge, else back to the calling agent, whose
// conversation then goes on with the tool answers. Real Temporal and MySQL, the model fake, a tool server.
import { randomUUID } from 'node:crypto';
import { agentStep, graphEdge, toolExecutorStep } from './support/factories';
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';
import type { RunView, StepView } from './support/views';

type Step = { uuid: string; name: string };

/** Every execution of the run's graph steps under its step's name, in the order they started. */
function executions(done: RunView): { name: string; execution: StepView & { iteration: number } }[] {
  const all = done.steps.flatMap((step) =>
    (step.iterations ?? []).map((execution: StepView & { iteration: number }) => ({ name: step.name, execution })),
  );
  return all.sort(
    (a, b) => a.execution.started_at!.localeCompare(b.execution.started_at!) || a.execution.iteration - b.execution.iteration,
  );
}

const pathOf = (done: RunView) => executions(done).map(({ name }) => name);

/** The run's tool calls with the step whose execution made them, as the run's view lists them. */
const toolCallsOf = (done: RunView) =>
  executions(done).flatMap(({ name, execution }) =>
    execution.tool_calls.map((call) => ({ tool_name: call.tool_name, step_name: name, status: call.status })),
  );

describe('Tool executor runs', () => {
  let stack: Stack;
  let tools: ToolServer;

  useStack((started) => (stack = started));
  beforeAll(async () => {
    tools = await ToolServer.start({
      research: (args) => ({ found: 'cheap prices', asked: args }),
      lookup: (args) => ({ looked_up: args }),
    });
  });
  afterAll(() => tools?.close());

  async function registerTool(handler: string): Promise<string> {
    const name = `${handler}_${randomUUID().slice(0, 8)}`;
    const created = await stack.user.post('/tools', {
      name,
      description: `the ${handler} tool`,
      parameters: { type: 'object' },
      endpoint_url: tools.url(handler),
      timeout_ms: 5000,
    });
    expect(created.status).toBe(201);
    return name;
  }

  const run = (steps: Step[], graph: Record<string, unknown>) => stack.runSteps(steps, { topic: 'prices' }, { fields: { graph } });
  const stepNamed = (done: RunView, name: string) => done.steps.find((step) => step.name === name)!;
  const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;
  const outputsOf = (done: RunView, name: string) =>
    stepNamed(done, name).iterations.map((execution: StepView) => execution.output!.raw_data);

  it('routes a tool result to the agent its tool names, another tool along the ALWAYS edge back to the router', async () => {
    const [research, lookup] = [await registerTool('research'), await registerTool('lookup')];
    const router = agentStep({ name: 'Router', system_prompt: 'Route the work on <<trigger_output.topic>>' });
    const worker = agentStep({ name: 'Worker', system_prompt: 'Do the work', tools: [research, lookup] });
    const analyst = agentStep({ name: 'Research', system_prompt: 'Interpret the research' });
    const executor = toolExecutorStep();
    const graph = {
      entry_node: router.uuid,
      edges: [
        graphEdge(router, worker, 'Worker'),
        graphEdge(router, null, 'END'),
        graphEdge(worker, executor, 'tool_executor'),
        graphEdge(executor, analyst, research),
        graphEdge(executor, router),
        graphEdge(analyst, router),
      ],
    };
    stack.model.script(
      reply.json({ next: 'Worker' }),
      reply.toolCalls([{ name: research, arguments: { q: 'prices' } }]),
      reply.text('prices are low'),
      reply.json({ next: 'Worker' }),
      reply.toolCalls([{ name: lookup, arguments: { id: 7 } }]),
      reply.json({ next: 'END' }),
    );

    const done = await run([router, worker, analyst, executor], graph);

    expect(done.status).toBe('completed');
    expect(pathOf(done)).toEqual(['Router', 'Worker', 'tool_executor', 'Research', 'Router', 'Worker', 'tool_executor', 'Router']);
    const [routerFirst, workerFirst, researchRequest] = stack.model.requests;
    expect(systemPromptOf(routerFirst)).toContain('one of "Worker", "END"');
    // Tool calls alone take the Worker to the tool executor: it is not asked for a `next`.
    expect(systemPromptOf(workerFirst)).not.toContain('"next"');
    expect((workerFirst.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name)).toEqual(
      expect.arrayContaining([research, lookup]),
    );
    // Tier 1: the research tool's result is the Research agent's $previous_output (an agent gets it as a reference).
    const researched = [{ tool: research, arguments: { q: 'prices' }, result: { found: 'cheap prices', asked: { q: 'prices' } } }];
    const previous = JSON.parse(String(researchRequest.body.messages[1].content).replace('Previous output:\n', ''));
    expect((await stack.user.get(`/outputs/${previous.output_id}`)).body.raw_data).toEqual(researched);

    expect(outputsOf(done, 'Worker')).toEqual([
      { tool_calls: [{ name: research, arguments: { q: 'prices' } }] },
      { tool_calls: [{ name: lookup, arguments: { id: 7 } }] },
    ]);
    expect(outputsOf(done, 'tool_executor')).toEqual([
      researched,
      [{ tool: lookup, arguments: { id: 7 }, result: { looked_up: { id: 7 } } }],
    ]);
    expect(outputsOf(done, 'Router')).toEqual([{ next: 'Worker' }, { next: 'Worker' }, { next: 'END' }]);
    expect([tools.countOf('research'), tools.countOf('lookup')]).toEqual([1, 1]);
    expect(toolCallsOf(done)).toEqual([
      { tool_name: research, step_name: 'tool_executor', status: 'completed' },
      { tool_name: lookup, step_name: 'tool_executor', status: 'completed' },
    ]);
  });

  it('goes back to the calling agent when no edge leaves the tool executor: its conversation goes on with the answers', async () => {
    const lookup = await registerTool('lookup');
    const worker = agentStep({ name: 'Worker', system_prompt: 'Answer about <<trigger_output.topic>>', tools: [lookup] });
    const executor = toolExecutorStep();
    stack.model.script(reply.toolCalls([{ name: lookup, arguments: { id: 42 } }]), reply.text('the answer is 42'));

    const done = await run([worker, executor], { entry_node: worker.uuid, edges: [graphEdge(worker, executor, 'tool_executor')] });

    expect(done.status).toBe('completed');
    expect(pathOf(done)).toEqual(['Worker', 'tool_executor', 'Worker']);
    const [first, second] = stack.model.requests;
    // The second execution starts from the first one's conversation plus the tool's answer, not a fresh prompt.
    expect(second.body.messages.slice(0, first.body.messages.length)).toEqual(first.body.messages);
    expect(second.body.messages.slice(first.body.messages.length)).toMatchObject([
      { role: 'assistant', tool_calls: [{ function: { name: lookup } }] },
      { role: 'tool', content: JSON.stringify({ looked_up: { id: 42 } }) },
    ]);
    expect(outputsOf(done, 'Worker')).toEqual([{ tool_calls: [{ name: lookup, arguments: { id: 42 } }] }, 'the answer is 42']);
    expect(stepNamed(done, 'Worker').output!.raw_data).toBe('the answer is 42');
    expect(tools.countOf('lookup', { id: 42 })).toBe(1);
    expect(toolCallsOf(done)).toEqual([{ tool_name: lookup, step_name: 'tool_executor', status: 'completed' }]);
  });

  it('runs the calls of two agents that hand over in the same wave, each back to its own conversation', async () => {
    const lookup = await registerTool('lookup');
    const start = agentStep({ name: 'Start', system_prompt: 'Start' });
    const [alpha, beta] = ['Alpha', 'Beta'].map((name) => agentStep({ name, system_prompt: `You are ${name}`, tools: [lookup] }));
    const executor = toolExecutorStep();
    // Beta's edge to the tool executor is ALWAYS: tool calls take it just the same.
    const graph = {
      entry_node: start.uuid,
      edges: [graphEdge(start, alpha), graphEdge(start, beta), graphEdge(alpha, executor, 'tool_executor'), graphEdge(beta, executor)],
    };
    stack.model.respondWith((request) => {
      const prompt = systemPromptOf(request);
      if (prompt.startsWith('Start')) return reply.text('go');
      const who = prompt.includes('Alpha') ? 'Alpha' : 'Beta';
      const answered = request.body.messages.some((message) => message.role === 'tool');
      return answered ? reply.text(`${who} done`) : reply.toolCalls([{ name: lookup, arguments: { who } }]);
    });

    const done = await run([start, alpha, beta, executor], graph);

    expect(done.status).toBe('completed');
    expect(outputsOf(done, 'Alpha')).toEqual([{ tool_calls: [{ name: lookup, arguments: { who: 'Alpha' } }] }, 'Alpha done']);
    expect(outputsOf(done, 'Beta')).toEqual([{ tool_calls: [{ name: lookup, arguments: { who: 'Beta' } }] }, 'Beta done']);
    expect(stepNamed(done, 'tool_executor').iteration_count).toBe(2);
    expect([tools.countOf('lookup', { who: 'Alpha' }), tools.countOf('lookup', { who: 'Beta' })]).toEqual([1, 1]);
  });
});
