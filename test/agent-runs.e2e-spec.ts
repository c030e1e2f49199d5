// Agent steps end to end: the built-in tools, the max_iterations bound, tool failures, and tool answers
// too large for Temporal payloads (the conversation lives in MySQL; the history carries references).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { ToolServer, toolScript } from './support/tool-server';

/** A tool endpoint that answers the scripted statuses in order, then 200: for retry and refusal cases. */
async function statusServer(statuses: number[]): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  const state = { hits: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = statuses[state.hits++] ?? 200;
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(status === 200 ? { ok: true } : { error: `status ${status}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tool`,
    get hits() {
      return state.hits;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('Agent runs', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const run = (steps: Record<string, unknown>[], trigger_output?: unknown) => stack.runSteps(steps, trigger_output);

  async function registerTool(endpoint_url: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const name = `tool_${randomUUID().slice(0, 8)}`;
    const created = await stack.user.post('/tools', {
      name,
      description: 'a test tool',
      parameters: { type: 'object' },
      endpoint_url,
      timeout_ms: 5000,
      ...overrides,
    });
    expect(created.status).toBe(201);
    return name;
  }

  const toolMessages = (request: { messages: { role: string; content: string | null }[] }) =>
    request.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content!));

  it('gives the agent a reference to the previous output and the full data through get_output', async () => {
    const data = { rows: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const agent = agentStep({ name: 'reader', system_prompt: 'Count the rows.' });
    // The output id is only known once the run exists: the first turn reads it from the request.
    stack.model.respondWith((request) => {
      if (stack.model.requests.length === 1) {
        const reference = JSON.parse(request.body.messages[1].content!.replace('Previous output:\n', ''));
        return reply.toolCalls([{ name: 'get_output', arguments: { output_id: reference.output_id } }]);
      }
      return reply.json({ count: 50 });
    });

    const body = await run([agent], data);

    expect(body.status).toBe('completed');
    const [first, second] = stack.model.requests.map((request) => request.body);
    expect(JSON.parse(first.messages[1].content!.replace('Previous output:\n', ''))).toEqual({
      output_id: body.trigger_output!.uuid,
      summary: body.trigger_output!.summary,
    });
    expect(first.messages[1].content).not.toContain('row 49');
    expect(toolMessages(second)).toEqual([data]);
    expect(body.steps[0].tool_calls).toEqual([
      expect.objectContaining({
        tool_name: 'get_output',
        status: 'completed',
        attempt: 1,
        input: { output_id: body.trigger_output!.uuid },
        output: data,
      }),
    ]);
    expect(body.steps[0].output!.raw_data).toEqual({ count: 50 });
  });

  it('calls the built-in http_request tool', async () => {
    const tools = await ToolServer.start({ echo: (args) => ({ echoed: args }) });
    try {
      const agent = agentStep({ name: 'fetcher', tools: ['http_request'] });
      stack.model.script(
        reply.toolCalls([{ name: 'http_request', arguments: { url: tools.url('echo'), method: 'POST', body: { q: 'stepwise' } } }]),
        reply.text('done'),
      );

      const body = await run([agent]);

      expect(body.status).toBe('completed');
      expect(tools.countOf('echo', { q: 'stepwise' })).toBe(1);
      expect(toolMessages(stack.model.requests[1].body)).toEqual([
        expect.objectContaining({ status: 200, body: { echoed: { q: 'stepwise' } }, truncated: false }),
      ]);
      expect(body.steps[0].output).toMatchObject({ raw_data: 'done', markdown_representation: 'done' });
    } finally {
      await tools.close();
    }
  });

  it('fails the step and the run when the agent reaches max_iterations', async () => {
    const tools = await ToolServer.start({ again: () => ({ more: true }) });
    try {
      const name = await registerTool(tools.url('again'));
      const agent = agentStep({ name: 'looper', tools: [name], max_iterations: 2 });
      stack.model.script(reply.toolCalls([{ name, arguments: { n: 1 } }]), reply.toolCalls([{ name, arguments: { n: 2 } }]));

      const body = await run([agent, llmStep({ name: 'after' })]);

      expect(body).toMatchObject({
        status: 'failed',
        error_message: 'Step "looper" failed: Agent step "looper" reached max_iterations (2) without a final answer',
      });
      expect(body.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
      expect(body.steps[0]).toMatchObject({ error_message: expect.stringContaining('max_iterations (2)') });
      expect(body.steps[0].tool_calls.map((call) => call.status)).toEqual(['completed', 'completed']);
    } finally {
      await tools.close();
    }
  });

  it('retries a tool that answers 503, and hands a 404 back to the model as the tool answer', async () => {
    const flaky = await statusServer([503]);
    const missing = await statusServer([404]);
    try {
      const flakyName = await registerTool(flaky.url);
      const missingName = await registerTool(missing.url);
      const agent = agentStep({
        name: 'caller',
        tools: [flakyName, missingName],
        retry_policy: { max_attempts: 3, initial_interval_seconds: 1 },
      });
      stack.model.script(
        reply.toolCalls([
          { name: flakyName, arguments: { a: 1 } },
          { name: missingName, arguments: { b: 2 } },
        ]),
        reply.text('coped'),
      );

      const body = await run([agent]);

      expect(body.status).toBe('completed');
      expect(flaky.hits).toBe(2);
      expect(missing.hits).toBe(1);
      const calls = body.steps[0].tool_calls.map((call) => [call.tool_name, call.attempt, call.status]);
      expect(calls).toEqual([
        [flakyName, 1, 'failed'],
        [flakyName, 2, 'completed'],
        [missingName, 1, 'failed'],
      ]);
      expect(body.steps[0].tool_calls[2].error_message).toContain('answered 404');
      expect(toolMessages(stack.model.requests[1].body)).toEqual([{ ok: true }, { error: expect.stringContaining('answered 404') }]);
    } finally {
      await flaky.close();
      await missing.close();
    }
  });

  // A tool whose timeout is above LOCAL_TOOL_CALL_MAX_TIMEOUT_MS (30 s) is called as an ordinary activity,
  // which hears the cancel at its next heartbeat; a shorter one as a local activity, which hears it when the
  // workflow task it keeps open is renewed (8 s into it with the default 10 s task timeout).
  it.each([
    ['queued', 120_000, 5_000],
    ['local', 30_000, 12_000],
  ])(
    'cancels a run during a %s tool call: the call is interrupted and audited, the step and run end cancelled',
    async (_, timeout_ms, withinMs) => {
      const tools = await ToolServer.start({ slow: () => ({ late: true }) });
      try {
        tools.script('slow', toolScript.delay(60_000));
        const name = await registerTool(tools.url('slow'), { timeout_ms });
        const wf = await stack.user.post('/workflows', {
          name: `agent-${randomUUID().slice(0, 8)}`,
          steps: [agentStep({ name: 'waiter', tools: [name] }), llmStep()],
        });
        stack.model.script(reply.toolCalls([{ name, arguments: { q: 1 } }]));
        const started = (await stack.user.post(`/workflows/${wf.body.uuid}/runs`, { trigger_output: {} })).body;
        await tools.waitForCalls(1, { name: 'slow' });

        const cancelledAt = Date.now();
        expect((await stack.user.post(`/runs/${started.uuid}/cancel`)).status).toBe(202);
        const body = await stack.waitForRun(started.uuid, (r) => r.status !== 'running', 20_000);

        expect(body.status).toBe('cancelled');
        expect(Date.now() - cancelledAt).toBeLessThan(withinMs);
        expect(body.steps.map((step) => [step.status, step.error_message])).toEqual([
          ['failed', 'Cancelled while running'],
          ['skipped', null],
        ]);
        expect(body.steps[0].tool_calls).toEqual([
          expect.objectContaining({ tool_name: name, attempt: 1, status: 'failed', error_message: expect.stringMatching(/abort/i) }),
        ]);
        expect(tools.calls[0]).toMatchObject({ aborted: true, completed: false });
        // The interrupted call is not handed to the model as an answer.
        expect(body.steps[0].messages.filter((message: { role: string }) => message.role === 'tool')).toEqual([]);
      } finally {
        await tools.close();
      }
    },
  );

  it('keeps large tool answers out of the Temporal history: the run completes and its history stays small', async () => {
    const page = 'x'.repeat(200 * 1024); // tool answers are cut at 256 KiB
    const tools = await ToolServer.start({ page: (args) => ({ n: (args as { n: number }).n, page }) });
    try {
      const name = await registerTool(tools.url('page'));
      const agent = agentStep({ name: 'reader', tools: [name] });
      // Twelve answers of 200 KiB: 2.4 MB of conversation, more than one Temporal payload may hold (2 MB).
      stack.model.script(
        ...[0, 1, 2, 3, 4, 5].map((turn) =>
          reply.toolCalls([
            { name, arguments: { n: 2 * turn } },
            { name, arguments: { n: 2 * turn + 1 } },
          ]),
        ),
        reply.json({ pages: 12 }),
      );

      const body = await run([agent]);

      expect(body.status).toBe('completed');
      expect(stack.model.requests[6].body.messages.filter((message) => message.role === 'tool')).toHaveLength(12);
      expect(body.steps[0].messages).toHaveLength(2 + 6 * (1 + 2) + 1); // system, user, six turns of two calls each, the answer
      const description = await (await stack.temporal()).workflow.getHandle(`run-${body.uuid}`).describe();
      expect(description.historySize).toBeLessThan(100 * 1024);
      // The audit keeps the conversation once: model calls name the messages they sent by count.
      expect(body.steps[0].model_calls.map((call) => call.request.message_count)).toEqual([2, 5, 8, 11, 14, 17, 20]);
      expect(JSON.stringify(body).length).toBeLessThan(6 * 1024 * 1024); // conversation + tool call audit, 2.4 MB each
    } finally {
      await tools.close();
    }
  });
});
