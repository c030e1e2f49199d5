// Runs end to end: REST -> Temporal workflow -> activities -> MySQL audit, with the model fake.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { reply } from './support/model-fake';
import { startApi, type ApiClient, type TestApi } from './support/api';
import { useStack, type Stack } from './support/stack';
import { agentStep, llmStep, stopChecker } from './support/factories';
import { ToolServer } from './support/tool-server';
import { decryptedHistory, fetchRunHistory } from './support/temporal-history';

/** What each competitor charges today, by `product@competitor`. */
const PRICES: Record<string, number> = {
  'iPhone 15 Pro@Amazon': 999,
  'iPhone 15 Pro@Walmart': 989,
  'Galaxy S24@Amazon': 799,
  'Galaxy S24@Walmart': 849,
};

function searchWeb(args: unknown) {
  const { product, competitor } = args as { product: string; competitor: string };
  return {
    product,
    competitor,
    price: PRICES[`${product}@${competitor}`],
    url: `https://${competitor.toLowerCase()}.example/${encodeURIComponent(product)}`,
  };
}

const searchWebTool = (name: string, endpoint_url: string) => ({
  name,
  description: 'Search a competitor for a product price',
  parameters: {
    type: 'object',
    properties: { product: { type: 'string' }, competitor: { type: 'string' } },
    required: ['product', 'competitor'],
  },
  endpoint_url,
  timeout_ms: 5000,
});

describe('Runs', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  it('runs a chain of LLM steps, passing full data forward and adding up its tokens', async () => {
    const first = llmStep({ name: 'summarise', system_prompt: 'Summarise: <<trigger_output.text>>' });
    const second = llmStep({
      name: 'label',
      system_prompt: `Label <<step_output.${first.uuid}>> (count <<step_output.${first.uuid}.count>>)`,
      output_schema: { type: 'object', required: ['label'] },
      execution: 'queued',
    });
    const wf = await stack.createWorkflow([first, second]);
    stack.model.script(
      reply.json({ summary: 'short', count: 2 }, { usage: { prompt_tokens: 20, completion_tokens: 7 } }),
      reply.json({ label: 'greeting' }),
    );

    const started = await stack.startRun(wf.uuid);
    expect(started).toMatchObject({
      status: 'running',
      steps: [{ status: expect.stringMatching(/pending|running/) }, { status: 'pending' }],
    });
    const run = await stack.waitForRun(started.uuid);

    expect(run).toMatchObject({ status: 'completed', error_message: null, tokens: { prompt: 30, completion: 12, total: 42 } });
    expect(run.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
    expect(run.steps[1].output).toMatchObject({ raw_data: { label: 'greeting' }, summary: 'Object with label: "greeting"' });
    expect(run.temporal.workflow_id).toBe(`run-${started.uuid}`);

    const [firstRequest, secondRequest] = stack.model.requests.map((r) => r.body);
    expect(firstRequest.messages[0]).toEqual({ role: 'system', content: 'Summarise: hello' });
    expect(firstRequest.response_format).toBeUndefined();
    expect(secondRequest.messages[0].content).toBe(`Label ${JSON.stringify({ summary: 'short', count: 2 }, null, 2)} (count 2)`);
    expect(secondRequest.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { type: 'object', required: ['label'] } },
    });

    const output = await stack.user.get(`/outputs/${run.steps[0].output!.uuid}`);
    expect(output.body).toMatchObject({ uuid: run.steps[0].output!.uuid, raw_data: { summary: 'short', count: 2 } });

    // What an engineer finds in the Temporal Web UI: the run by its attributes (plain), its memo and each
    // activity named by its step (encrypted, read through the codec): the first step's call as a local
    // activity's marker, the queued step's as an activity of the task queue.
    const handle = (await stack.temporal()).workflow.getHandle(run.temporal.workflow_id);
    const description = await handle.describe();
    expect(description.searchAttributes).toMatchObject({
      StepwiseRunUuid: [started.uuid],
      StepwiseWorkflowUuid: [wf.uuid],
      StepwiseWorkflowName: [wf.name],
      StepwiseUserId: [stack.user.userId],
    });
    expect(description.memo).toMatchObject({ run_uuid: started.uuid, workflow_name: wf.name });
    const history = await fetchRunHistory(run.temporal.workflow_id);
    const summaryOf = (e: (typeof history.events & object)[number]) =>
      e.userMetadata?.summary?.data && Buffer.from(e.userMetadata.summary.data).toString();
    const named = (e: (typeof history.events & object)[number]) =>
      e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes;
    expect(history.events!.filter(named).map(summaryOf).join()).not.toContain('summarise');
    const decrypted = decryptedHistory(history, stack.api.config.security.keyring).events!;
    expect(decrypted.filter((e) => e.activityTaskScheduledEventAttributes).map(summaryOf)).toEqual(['"label (custom_llm)"']);
    expect(decrypted.filter((e) => e.markerRecordedEventAttributes).map(summaryOf)).toContain('"summarise (custom_llm)"');
  });

  it('runs the daily competitor price monitor: an agent with a registered tool, an LLM step, a stop checker', async () => {
    const tools = await ToolServer.start({ search_web: searchWeb });
    try {
      const toolName = `search_web_${randomUUID().slice(0, 6)}`;
      expect((await stack.user.post('/tools', searchWebTool(toolName, tools.url('search_web')))).status).toBe(201);
      const fetcher = agentStep({
        name: 'Price Fetcher',
        tools: [toolName],
        system_prompt: 'You are a price fetcher. For EACH product, search Amazon and Walmart (4 searches).',
      });
      const comparator = llmStep({
        name: 'Price Comparator',
        system_prompt: `Compare these prices with yesterday's and flag changes over 10%:\n<<step_output.${fetcher.uuid}>>`,
        output_schema: { type: 'object', required: ['alerts', 'summary'] },
      });
      const checker = stopChecker(comparator.uuid, {
        name: 'No alerts',
        stop_conditions: [
          { step_definition_uuid: comparator.uuid, extraction_json_path: '$.alerts.length', operator: 'equals', target_value: 0 },
        ],
      });
      const wf = await stack.createWorkflow([fetcher, comparator, checker]);
      const searches = Object.keys(PRICES).map((key) => ({
        name: toolName,
        arguments: { product: key.split('@')[0], competitor: key.split('@')[1] },
      }));
      const fetched = {
        prices: searches.map(({ arguments: { product, competitor } }) => ({
          product,
          competitor,
          price: PRICES[`${product}@${competitor}`],
        })),
      };
      const alerts = { alerts: [{ product: 'Galaxy S24', old_price: 699, new_price: 799, change_percent: 14.3 }], summary: '1 alert' };
      stack.model.script(
        reply.toolCalls(searches.slice(0, 2)),
        reply.toolCalls(searches.slice(2)),
        reply.json(fetched),
        reply.json(alerts),
      );

      const run = await stack.waitForRun((await stack.startRun(wf.uuid, { products: ['iPhone 15 Pro', 'Galaxy S24'] })).uuid);

      expect(run).toMatchObject({ status: 'completed', tokens: { total: 4 * 15 } });
      const [agent, llm, stop] = run.steps;
      expect([agent.status, llm.status, stop.status]).toEqual(['completed', 'completed', 'completed']);
      expect(agent.tool_calls.map((call) => [call.status, call.input])).toEqual(searches.map((search) => ['completed', search.arguments]));
      for (const search of searches) expect(tools.countOf('search_web', search.arguments)).toBe(1);
      expect([agent.output!.raw_data, llm.output!.raw_data, stop.output]).toEqual([fetched, alerts, null]);
      const requests = stack.model.requests.map((r) => r.body);
      expect(requests[0].tools!.map((t) => t.function.name).sort()).toEqual(['get_output', toolName].sort());
      // Turn 2 holds the two first tool answers; turn 3 all four.
      expect(requests[1].messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!).price)).toEqual([999, 989]);
      expect(requests[2].messages.filter((m) => m.role === 'tool')).toHaveLength(4);
      // The LLM step gets the agent's full output, and asks for JSON.
      expect(requests[3].messages[0].content).toContain(JSON.stringify(fetched, null, 2));
      expect(requests[3].response_format).toMatchObject({ type: 'json_schema' });
    } finally {
      await tools.close();
    }
  });

  it('resolves $previous_output past a stop checker, gives LLM steps markdown for text, and the previous output as the user message without placeholders', async () => {
    const report = llmStep({ name: 'report', system_prompt: 'Write a report on <<trigger_output.topic>>' });
    const check = stopChecker(report.uuid, {
      stop_conditions: [{ step_definition_uuid: report.uuid, extraction_json_path: '$.length', operator: 'equals', target_value: 0 }],
    });
    const review = llmStep({
      name: 'review',
      system_prompt: 'Review this:\n$previous_output',
      output_schema: { type: 'object', required: ['score'] },
    });
    const score = llmStep({
      name: 'score',
      system_prompt: `The score was $previous_output.score; the report <<step_output.${report.uuid}|none>>; an older one <<step_output.${report.uuid}[-2]|none>>.`,
    });
    const plain = llmStep({ name: 'plain', system_prompt: 'Say something about what you are given.' });
    const wf = await stack.createWorkflow([report, check, review, score, plain]);
    const markdown = '# Prices\n\n- all *stable*';
    stack.model.script(reply.text(markdown), reply.json({ score: 7, notes: ['ok'] }), reply.text('fine'), reply.text('done'));

    const run = await stack.waitForRun((await stack.startRun(wf.uuid, { topic: 'prices' })).uuid);

    expect(run.status).toBe('completed');
    const [first, second, third, fourth] = stack.model.requests.map((r) => r.body);
    expect(first.messages).toEqual([
      { role: 'system', content: 'Write a report on prices' },
      { role: 'user', content: 'Execute your task.' },
    ]);
    expect(second.messages[0].content).toBe(`Review this:\n${markdown}`);
    expect(third.messages[0].content).toBe(`The score was 7; the report ${markdown}; an older one none.`);
    expect(fourth.messages[1].content).toBe('Previous output:\nfine');
    expect(run.steps[2].input_data).toMatchObject({
      references: [{ placeholder: '$previous_output', output_id: run.steps[0].output!.uuid }],
    });
    expect(run.steps[0].output).toMatchObject({ raw_data: markdown, markdown_representation: markdown });
    expect(run.steps[2].output).toMatchObject({ raw_data: { score: 7, notes: ['ok'] }, markdown_representation: null });
  });

  it('stops the run when a stop checker fires and skips the steps after it', async () => {
    const check = llmStep({ name: 'check' });
    const after = llmStep({ name: 'never' });
    const wf = await stack.createWorkflow([check, stopChecker(check.uuid), after]);
    stack.model.script(reply.json({ status: 'stop' }));
    const run = await stack.waitForRun((await stack.startRun(wf.uuid)).uuid);
    expect(run.status).toBe('stopped');
    expect(run.error_message).toContain('$.status equals "stop"');
    expect(run.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'skipped']);
  });

  it('cancels a run mid-step: the model call is interrupted, the rest skipped, a second cancel is refused', async () => {
    const slow = llmStep({ name: 'slow' });
    const wf = await stack.createWorkflow([slow, llmStep({ name: 'next' })]);
    stack.model.script(reply.text('too late', { delayMs: 60_000 }));
    const started = await stack.startRun(wf.uuid);
    await stack.model.waitForRequests(1);

    const cancelled = await stack.user.post(`/runs/${started.uuid}/cancel`);
    expect(cancelled).toMatchObject({ status: 202, body: { cancel_requested: true } });
    const run = await stack.waitForRun(started.uuid, (r) => r.status !== 'running', 20_000);

    expect(run.status).toBe('cancelled');
    expect(run.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(run.steps[0].error_message).toBe('Cancelled while running');
    expect(stack.model.requests[0].aborted).toBe(true);
    expect(await stack.user.post(`/runs/${started.uuid}/cancel`)).toMatchObject({ status: 409, body: { code: 'RUN_NOT_ACTIVE' } });
  });

  it('cancels a scheduled run through its own Temporal execution', async () => {
    const wf = await stack.createWorkflow([llmStep({ name: 'slow' })]);
    const schedule = await stack.user.post(`/workflows/${wf.uuid}/schedules`, {
      schedule_type: 'recurring',
      cron_expression: '0 0 1 1 *',
      timezone: 'UTC',
    });
    expect(schedule.status).toBe(201);
    try {
      stack.model.script(reply.text('too late', { delayMs: 60_000 }));
      expect((await stack.user.post(`/schedules/${schedule.body.id}/trigger`)).status).toBe(202);
      await stack.model.waitForRequests(1);
      const [started] = (await stack.user.get(`/runs?schedule_id=${schedule.body.id}`)).body.items;
      expect(started.temporal.workflow_id).not.toBe(`run-${started.uuid}`);

      expect((await stack.user.post(`/runs/${started.uuid}/cancel`)).status).toBe(202);
      const run = await stack.waitForRun(started.uuid, (r) => r.status !== 'running', 20_000);

      expect(run.status).toBe('cancelled');
      expect(stack.model.requests[0].aborted).toBe(true);
    } finally {
      await stack.user.delete(`/schedules/${schedule.body.id}`);
    }
  });

  it('shows a run terminated in Temporal (Web UI, CLI, server) as failed with the reason, and refuses to cancel it', async () => {
    const wf = await stack.createWorkflow([llmStep({ name: 'slow' }), llmStep({ name: 'next' })]);
    stack.model.script(reply.text('too late', { delayMs: 60_000 }));
    const started = await stack.startRun(wf.uuid);
    await stack.model.waitForRequests(1);

    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      await new Client({ connection }).workflow.getHandle(started.temporal.workflow_id).terminate('operator stopped it');
    } finally {
      await connection.close();
    }
    const run = await stack.waitForRun(started.uuid, (r) => r.status !== 'running', 20_000);

    expect(run).toMatchObject({ status: 'failed', error_message: 'Terminated in Temporal: operator stopped it' });
    expect(run.steps.map((s) => [s.status, s.error_message])).toEqual([
      ['failed', 'Interrupted: Terminated in Temporal: operator stopped it'],
      ['skipped', null],
    ]);
    expect(await stack.user.post(`/runs/${started.uuid}/cancel`)).toMatchObject({
      status: 409,
      body: { code: 'RUN_NOT_ACTIVE', details: { status: 'failed' } },
    });
    // The worker notices too: the heartbeat of the orphaned activity is refused and the model call aborted.
    for (const deadline = Date.now() + 15_000; !stack.model.requests[0].aborted && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    expect(stack.model.requests[0].aborted).toBe(true);
  });

  it('retries a 429 after its retry-after, the step completing on its second attempt', async () => {
    const wf = await stack.createWorkflow([llmStep()]);
    stack.model.script(reply.error(429, { retryAfterSeconds: 1, message: 'rate limited' }), reply.text('fine'));
    const run = await stack.waitForRun((await stack.startRun(wf.uuid)).uuid);
    expect(run.status).toBe('completed');
    expect(run.steps[0]).toMatchObject({ attempts: 2, output: { raw_data: 'fine', markdown_representation: 'fine' } });
    const gap = stack.model.requests[1].received_at - stack.model.requests[0].received_at;
    expect(gap).toBeGreaterThanOrEqual(900);
  });

  it('fails the run at once on a 400, with the provider message on the step and the run', async () => {
    const wf = await stack.createWorkflow([llmStep({ name: 'bad' }), llmStep()]);
    stack.model.script(reply.error(400, { message: 'model gpt-9 does not exist' }));
    const run = await stack.waitForRun((await stack.startRun(wf.uuid)).uuid);
    expect(run).toMatchObject({ status: 'failed', error_message: expect.stringContaining('model gpt-9 does not exist') });
    expect(run.error_message).toContain('Step "bad" failed');
    expect(run.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(run.steps[0]).toMatchObject({ attempts: 1, error_message: expect.stringContaining('model gpt-9 does not exist') });
    expect(stack.model.requests).toHaveLength(1);
    const failedList = await stack.user.get(`/runs?status=failed&workflow_uuid=${wf.uuid}`);
    expect(failedList.body.items.map((r: { uuid: string }) => r.uuid)).toEqual([run.uuid]);
  });

  it('runs the definition as it was at start, whatever edits come while it waits', async () => {
    const first = llmStep({ name: 'first' });
    const second = llmStep({ name: 'second', system_prompt: 'Original prompt' });
    const wf = await stack.createWorkflow([first, second]);
    stack.model.script(reply.text('one', { delayMs: 1500 }), reply.text('two'));
    const started = await stack.startRun(wf.uuid);
    await stack.model.waitForRequests(1);

    expect((await stack.user.patch(`/steps/${second.uuid}`, { system_prompt: 'Edited prompt' })).status).toBe(200);
    expect((await stack.user.post(`/workflows/${wf.uuid}/steps`, llmStep({ name: 'added' }))).status).toBe(201);
    const run = await stack.waitForRun(started.uuid);

    expect(run.status).toBe('completed');
    expect(run.steps).toHaveLength(2);
    expect(stack.model.requests[1].body.messages[0].content).toBe('Original prompt');
    expect(run.definition.steps[1].system_prompt).toBe('Original prompt');
  });

  it('pages runs by cursor, newest first, unmoved by runs started between pages', async () => {
    const wait = { uuid: randomUUID(), type: 'human_input', name: 'wait', prompt: 'Go on?' };
    const wf = await stack.createWorkflow([wait]);
    const started = [];
    for (let i = 0; i < 3; i++) started.push((await stack.startRun(wf.uuid)).uuid);
    const first = (await stack.user.get(`/workflows/${wf.uuid}/runs?limit=2`)).body;
    expect(first).toMatchObject({ total: 3, limit: 2, next_cursor: expect.any(String) });
    expect(first.items.map((run: { uuid: string }) => run.uuid)).toEqual([started[2], started[1]]);
    started.push((await stack.startRun(wf.uuid)).uuid);
    const second = (await stack.user.get(`/workflows/${wf.uuid}/runs?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second).toMatchObject({ total: 4, next_cursor: null });
    expect(second.items.map((run: { uuid: string }) => run.uuid)).toEqual([started[0]]);
    await Promise.all(started.map((uuid) => stack.user.post(`/runs/${uuid}/cancel`)));
  });

  it('lists runs per workflow and refuses to start runs it cannot', async () => {
    const wf = await stack.createWorkflow([llmStep()]);
    stack.model.script(reply.text('ok'));
    const run = await stack.waitForRun((await stack.startRun(wf.uuid)).uuid);
    const list = await stack.user.get(`/workflows/${wf.uuid}/runs`);
    expect(list.body).toMatchObject({ total: 1, items: [{ uuid: run.uuid, status: 'completed' }] });
    expect((await stack.user.get('/runs?status=bogus')).body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'status' } });
    expect((await stack.user.post(`/workflows/${randomUUID()}/runs`, {})).status).toBe(404);
    const empty = await stack.createWorkflow([]);
    expect((await stack.user.post(`/workflows/${empty.uuid}/runs`, {})).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'steps' },
    });
    const other = await stack.api.newUser();
    expect((await other.get(`/runs/${run.uuid}`)).status).toBe(404);
    expect((await other.get(`/outputs/${run.steps[0].output!.uuid}`)).status).toBe(404);
  });
});

describe('Tools API', () => {
  // The registry alone: no run, so no worker or model fake.
  let api: TestApi;
  let user: ApiClient;
  beforeAll(async () => {
    api = await startApi();
    user = await api.newUser();
  });
  afterAll(() => api.close());

  const tool = (overrides: Record<string, unknown> = {}) => ({
    name: `t_${randomUUID().slice(0, 8)}`,
    description: 'a tool',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    endpoint_url: 'http://127.0.0.1:9/tool',
    ...overrides,
  });

  it('registers, lists, reads and deletes tools', async () => {
    const created = await user.post('/tools', tool());
    expect(created).toMatchObject({ status: 201, body: { transport: 'http', timeout_ms: 30000 } });
    const list = await user.get('/tools');
    expect(list.body.items.map((t: { uuid: string }) => t.uuid)).toEqual([created.body.uuid]);
    expect(list.body.builtin.map((t: { name: string }) => t.name)).toEqual(['get_output', 'http_request']);
    expect((await user.get(`/tools/${created.body.uuid}`)).body.name).toBe(created.body.name);
    expect((await user.delete(`/tools/${created.body.uuid}`)).status).toBe(204);
    expect((await user.get(`/tools/${created.body.uuid}`)).status).toBe(404);
  });

  it.each([
    [
      'a duplicate name',
      async () => {
        const t = tool();
        await user.post('/tools', t);
        return t;
      },
      409,
      'CONFLICT',
      'name',
    ],
    ['a built-in name', async () => tool({ name: 'get_output' }), 409, 'CONFLICT', 'name'],
    ['a bad name', async () => tool({ name: 'has space' }), 422, 'VALIDATION_FAILED', 'name'],
    ['invalid parameters', async () => tool({ parameters: { type: 'nope' } }), 422, 'INVALID_OUTPUT_SCHEMA', 'parameters'],
    ['a non-http endpoint', async () => tool({ endpoint_url: 'ftp://x' }), 422, 'VALIDATION_FAILED', 'endpoint_url'],
  ])('refuses %s', async (_case, body, status, code, field) => {
    const reply = await user.post('/tools', await body());
    expect(reply).toMatchObject({ status, body: { code, details: { field } } });
  });
});
