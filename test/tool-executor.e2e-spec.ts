// Tool executor steps end to end (seed 004, 2.4): an agent hands its tool calls to the tool executor, which
// runs them and routes by the tool's name, else its ALWAYS edge, else back to the calling agent, whose
// conversation then goes on with the tool answers. Real Temporal and MySQL, the model fake, a tool server.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { agentStep, graphEdge, toolExecutorStep } from './support/factories';
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

type Step = { uuid: string; name: string };

describe('Tool executor runs', () => {
  let stack: Stack;
  let tools: ToolServer;
  let db: DataSource;

  useStack((started) => (stack = started));
  beforeAll(async () => {
    db = stack.api.app.get(DataSource);
    tools = await ToolServer.start({ research: (args) => ({ found: 'cheap prices', asked: args }), lookup: (args) => ({ looked_up: args }) });
  });
  afterAll(() => tools?.close());

  async function registerTool(handler: string): Promise<string> {
    const name = `${handler}_${randomUUID().slice(0, 8)}`;
    const created = await stack.user.post('/tools', { name, description: `the ${handler} tool`, parameters: { type: 'object' }, endpoint_url: tools.url(handler), timeout_ms: 5000 });
    expect(created.status).toBe(201);
    return name;
  }

  const run = (steps: Step[], graph: Record<string, unknown>) => stack.runSteps(steps, { topic: 'prices' }, { fields: { graph } });
  const stepNamed = (done: RunBody, name: string) => done.steps.find((step: RunBody) => step.name === name);
  const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;
  const outputsOf = (done: RunBody, name: string) => stepNamed(done, name).iterations.map((execution: RunBody) => execution.output.raw_data);

  /** Every execution of the run, in the order they started. */
  async function path(runUuid: string): Promise<string[]> {
    const rows: { step_name: string }[] = await db.query(
      'SELECT step_name FROM workflow_step_instances WHERE run_uuid = ? AND parent_instance_uuid IS NOT NULL ORDER BY started_at, execution_index',
      [runUuid],
    );
    return rows.map((row) => row.step_name);
  }

  /** The tool_calls audit rows with the step whose execution they are under. */
  async function toolAudit(runUuid: string): Promise<{ tool_name: string; step_name: string; status: string }[]> {
    return db.query(
      `SELECT t.tool_name, i.step_name, t.status FROM tool_calls t JOIN workflow_step_instances i ON i.uuid = t.step_instance_uuid
       WHERE t.run_uuid = ? ORDER BY t.started_at`,
      [runUuid],
    );
  }

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
    expect(await path(done.uuid)).toEqual(['Router', 'Worker', 'tool_executor', 'Research', 'Router', 'Worker', 'tool_executor', 'Router']);
    const [routerFirst, workerFirst, researchRequest] = stack.model.requests;
    expect(systemPromptOf(routerFirst)).toContain('one of "Worker", "END"');
    // Tool calls alone take the Worker to the tool executor: it is not asked for a `next`.
    expect(systemPromptOf(workerFirst)).not.toContain('"next"');
    expect((workerFirst.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name)).toEqual(expect.arrayContaining([research, lookup]));
    // Tier 1: the research tool's result is the Research agent's $previous_output (an agent gets it as a reference).
    const previous = JSON.parse(String(researchRequest.body.messages[1].content).replace('Previous output:\n', ''));
    const [stored] = await db.query('SELECT raw_data FROM step_outputs WHERE uuid = ?', [previous.output_id]);
    expect(JSON.parse(stored.raw_data)).toEqual([{ tool: research, arguments: { q: 'prices' }, result: { found: 'cheap prices', asked: { q: 'prices' } } }]);

    expect(outputsOf(done, 'Worker')).toEqual([{ tool_calls: [{ name: research, arguments: { q: 'prices' } }] }, { tool_calls: [{ name: lookup, arguments: { id: 7 } }] }]);
    expect(outputsOf(done, 'tool_executor')).toEqual([
      [{ tool: research, arguments: { q: 'prices' }, result: { found: 'cheap prices', asked: { q: 'prices' } } }],
      [{ tool: lookup, arguments: { id: 7 }, result: { looked_up: { id: 7 } } }],
    ]);
    expect(outputsOf(done, 'Router')).toEqual([{ next: 'Worker' }, { next: 'Worker' }, { next: 'END' }]);
    expect([tools.countOf('research'), tools.countOf('lookup')]).toEqual([1, 1]);
    expect(await toolAudit(done.uuid)).toEqual([
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
    expect(await path(done.uuid)).toEqual(['Worker', 'tool_executor', 'Worker']);
    const [first, second] = stack.model.requests;
    // The second execution starts from the first one's conversation plus the tool's answer, not a fresh prompt.
    expect(second.body.messages.slice(0, first.body.messages.length)).toEqual(first.body.messages);
    expect(second.body.messages.slice(first.body.messages.length)).toMatchObject([
      { role: 'assistant', tool_calls: [{ function: { name: lookup } }] },
      { role: 'tool', content: JSON.stringify({ looked_up: { id: 42 } }) },
    ]);
    expect(outputsOf(done, 'Worker')).toEqual([{ tool_calls: [{ name: lookup, arguments: { id: 42 } }] }, 'the answer is 42']);
    expect(stepNamed(done, 'Worker').output.raw_data).toBe('the answer is 42');
    expect(tools.countOf('lookup', { id: 42 })).toBe(1);
    expect(await toolAudit(done.uuid)).toEqual([{ tool_name: lookup, step_name: 'tool_executor', status: 'completed' }]);
  });

  it('runs the calls of two agents that hand over in the same wave, each back to its own conversation', async () => {
    const lookup = await registerTool('lookup');
    const start = agentStep({ name: 'Start', system_prompt: 'Start' });
    const [alpha, beta] = ['Alpha', 'Beta'].map((name) => agentStep({ name, system_prompt: `You are ${name}`, tools: [lookup] }));
    const executor = toolExecutorStep();
    // Beta's edge to the tool executor is ALWAYS: tool calls take it just the same.
    const graph = { entry_node: start.uuid, edges: [graphEdge(start, alpha), graphEdge(start, beta), graphEdge(alpha, executor, 'tool_executor'), graphEdge(beta, executor)] };
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
