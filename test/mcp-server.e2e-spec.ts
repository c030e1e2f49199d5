// stepwise as an MCP server, driven by the official SDK client over real HTTP: the tools create, run,
// follow, cancel and resume workflows for the API key's user only; the HTTP shims call the same tools.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { llmStep } from './support/factories';
import { McpTestClient, mcpUrl, type Structured } from './support/mcp-client';

const TOOL_NAMES = [
  'create_workflow',
  'list_workflows',
  'get_workflow',
  'schedule_workflow',
  'run_workflow',
  'get_workflow_run',
  'watch_run',
  'list_failed_runs',
  'cancel_workflow',
  'resume_run',
  'replay_run',
  'run_evaluation',
  'get_evaluation',
  'list_step_types',
  'get_step_type',
  'list_tools',
  'start_assistant_session',
  'send_assistant_message',
  'get_assistant_session',
];

const humanStep = () => ({ uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?' });
const finished = (run: Structured) => run.status !== 'running' && run.status !== 'awaiting_input';

describe('MCP server', () => {
  let stack: Stack;
  let mcp: McpTestClient;

  useStack((started) => (stack = started));
  beforeAll(async () => (mcp = await McpTestClient.connect(stack.user)));
  afterAll(() => mcp?.close());

  const createWorkflow = async (steps: Record<string, unknown>[]) =>
    mcp.ok('create_workflow', { name: `mcp-${randomUUID().slice(0, 8)}`, steps });
  const runToEnd = async (workflowUuid: string, trigger_output: unknown = { text: 'hello' }) => {
    const started = await mcp.ok('run_workflow', { workflow_uuid: workflowUuid, trigger_output });
    return mcp.waitForRun(started.run.uuid, finished);
  };

  it('lists its tools, each with an input schema and an output schema', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const create = tools.find((tool) => tool.name === 'create_workflow')!;
    expect(create.inputSchema.required).toEqual(['name']);
    expect(JSON.stringify(create.inputSchema.properties?.steps)).toContain('"system_prompt"');
  });

  it('creates a workflow, runs it and reads the run until it completes', async () => {
    stack.model.script(reply.text('a short summary'));
    const workflow = await createWorkflow([llmStep({ name: 'summarise' })]);
    expect(workflow).toMatchObject({ name: expect.stringMatching(/^mcp-/), steps: [{ name: 'summarise', type: 'custom_llm' }] });

    const done = await runToEnd(workflow.uuid, { text: 'a long text' });
    expect(done).toMatchObject({
      workflow_uuid: workflow.uuid,
      status: 'completed',
      steps: [{ name: 'summarise', status: 'completed', output: { raw_data: 'a short summary' } }],
    });
    expect(stack.model.requests[0].body.messages[0].content).toContain('a long text');
    expect((await mcp.ok('get_workflow', { workflow_uuid: workflow.uuid })).steps[0].system_prompt).toBe('Summarise <<trigger_output>>');
    expect((await mcp.ok('list_workflows')).items.map((item: Structured) => item.uuid)).toContain(workflow.uuid);
  });

  it('lists failed runs and resumes one from its failed step', async () => {
    stack.model.script(reply.error(400, { message: 'model test-model does not exist' }), reply.text('second try'));
    const workflow = await createWorkflow([llmStep()]);
    const failed = await runToEnd(workflow.uuid);
    expect(failed).toMatchObject({ status: 'failed', error_message: expect.stringContaining('does not exist') });

    const listed = await mcp.ok('list_failed_runs', { workflow_uuid: workflow.uuid });
    expect(listed).toMatchObject({ total: 1, items: [{ uuid: failed.uuid, status: 'failed' }] });
    expect((await mcp.ok('list_failed_runs', { workflow_uuid: workflow.uuid, status: 'partial_success' })).items).toEqual([]);

    const resumed = await mcp.ok('resume_run', { run_uuid: failed.uuid });
    expect(resumed).toMatchObject({ created: true, run: { parent_run_uuid: failed.uuid } });
    expect(await mcp.waitForRun(resumed.run.uuid, finished)).toMatchObject({
      status: 'completed',
      steps: [{ output: { raw_data: 'second try' } }],
    });

    // Replayed, the run that completed is answered from its record: nothing more is scripted.
    const replayed = await mcp.ok('replay_run', { run_uuid: resumed.run.uuid });
    expect(replayed).toMatchObject({ created: true, run: { replay_of: resumed.run.uuid } });
    expect(await mcp.waitForRun(replayed.run.uuid, finished)).toMatchObject({
      status: 'completed',
      steps: [{ output: { raw_data: 'second try' } }],
    });
  });

  it('runs an evaluation of a dataset and reads its report', async () => {
    const workflow = await createWorkflow([llmStep()]);
    const cases = [
      {
        name: 'says hi',
        trigger_output: { text: 'hello' },
        assertions: [{ kind: 'condition', path: '$', operator: 'contains', value: 'hi' }],
      },
    ];
    expect(await stack.user.post(`/workflows/${workflow.uuid}/datasets`, { name: 'smoke', cases })).toMatchObject({ status: 200 });
    stack.model.script(reply.text('hi there'));

    const started = await mcp.ok('run_evaluation', { workflow_uuid: workflow.uuid, dataset: 'smoke' });
    expect(started).toMatchObject({ status: 'running', targets: ['current'] });
    let evaluation = started;
    for (const deadline = Date.now() + 30_000; evaluation.status === 'running' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      evaluation = await mcp.ok('get_evaluation', { evaluation_uuid: started.uuid });
    }
    expect(evaluation).toMatchObject({
      status: 'completed',
      report: { targets: [{ target: 'current', passed: 1, failed: 0 }], comparison: null },
    });
  });

  it('cancels a run that waits for a person', async () => {
    const workflow = await createWorkflow([humanStep()]);
    const started = await mcp.ok('run_workflow', { workflow_uuid: workflow.uuid, idempotency_key: 'mcp-cancel' });
    expect((await mcp.ok('run_workflow', { workflow_uuid: workflow.uuid, idempotency_key: 'mcp-cancel' })).run.uuid).toBe(started.run.uuid);
    await mcp.waitForRun(started.run.uuid, (run) => run.status === 'awaiting_input');

    expect(await mcp.ok('cancel_workflow', { run_uuid: started.run.uuid })).toEqual({
      uuid: started.run.uuid,
      status: 'awaiting_input',
      cancel_requested: true,
    });
    expect(await mcp.waitForRun(started.run.uuid, finished)).toMatchObject({ status: 'cancelled' });
    const again = await mcp.call('cancel_workflow', { run_uuid: started.run.uuid });
    expect(again).toMatchObject({ isError: true, structured: { code: 'RUN_NOT_ACTIVE', details: { status: 'cancelled' } } });
  });

  it('describes step types: every field with its type, enum values, default and an example', async () => {
    const { step_types } = await mcp.ok('list_step_types');
    expect(step_types.map((type: Structured) => type.type)).toEqual([
      'custom_llm',
      'custom_agent',
      'stop_checker',
      'tool_executor',
      'human_input',
      'sub_workflow',
    ]);
    expect(step_types[0]).toMatchObject({ name: 'LLM call', required_fields: ['type', 'name', 'model', 'system_prompt'] });

    const llm = await mcp.ok('get_step_type', { type: 'custom_llm' });
    const fields = Object.fromEntries(llm.fields.map((field: Structured) => [field.name, field]));
    expect(fields.max_correction_attempts).toMatchObject({ type: 'integer|null', required: false, default: 2, example: 2 });
    expect(fields.loop.description).toContain('for_each');
    expect(fields.loop.description).toContain('max_concurrency');
    expect(fields.join).toMatchObject({ enum_values: ['any', 'all', null], default: 'any' });
    // Workflows that compose (#29): an agent writing workflows learns how one calls another.
    const sub = await mcp.ok('get_step_type', { type: 'sub_workflow' });
    expect(sub.fields.map((field: Structured) => field.name)).toEqual(expect.arrayContaining(['workflow_uuid', 'input']));
    expect(sub.description).toContain('input_schema');
    expect(llm.example).toMatchObject({ type: 'custom_llm', name: expect.any(String), model: expect.any(String) });
    // The example is a step create_workflow accepts as it is.
    expect(await mcp.call('create_workflow', { name: `mcp-${randomUUID().slice(0, 8)}`, steps: [llm.example] })).toMatchObject({
      isError: false,
    });

    expect(await mcp.call('get_step_type', { type: 'TRIGGER' })).toMatchObject({
      isError: true,
      structured: { code: 'VALIDATION_FAILED', field: 'type' },
    });
  });

  it('lists built-in and registered tools', async () => {
    const registered = await stack.user.post('/tools', {
      name: `lookup_${randomUUID().slice(0, 8)}`,
      description: 'Look up',
      parameters: { type: 'object' },
      endpoint_url: 'http://127.0.0.1:9/x',
    });
    expect(registered.status).toBe(201);
    const { tools } = await mcp.ok('list_tools');
    expect(tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'http_request', source: 'builtin' }),
        { name: registered.body.name, description: 'Look up', parameters: { type: 'object' }, source: 'registered' },
      ]),
    );
  });

  it('schedules a workflow', async () => {
    const workflow = await createWorkflow([llmStep()]);
    const schedule = await mcp.ok('schedule_workflow', {
      workflow_uuid: workflow.uuid,
      schedule_type: 'recurring',
      cron_expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Paris',
    });
    expect(schedule).toMatchObject({
      id: expect.stringMatching(/^sched-/),
      schedule_type: 'recurring',
      workflow_uuid: workflow.uuid,
      next_action_times: expect.any(Array),
    });
    expect((await stack.user.delete(`/schedules/${schedule.id}`)).status).toBe(204);
  });

  it('refuses a bad call with the coded error the REST API gives, as a tool error', async () => {
    const refused = await mcp.call('create_workflow', {
      name: 'bad',
      steps: [{ type: 'custom_llm', name: 'x', model: 'm', system_prompt: 'Read <<step_output.6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f>>' }],
    });
    expect(refused).toMatchObject({ isError: true, structured: { code: 'UNKNOWN_STEP_REFERENCE', field: 'steps[0].system_prompt' } });
    expect(refused.text).toContain('UNKNOWN_STEP_REFERENCE');
    expect(await mcp.call('get_workflow', { workflow_uuid: 'not-a-uuid' })).toMatchObject({
      isError: true,
      structured: { code: 'VALIDATION_FAILED', field: 'workflow_uuid' },
    });
    expect(await mcp.call('no_such_tool')).toMatchObject({ isError: true, structured: { code: 'NOT_FOUND', field: 'name' } });
  });

  it('serves the same tools over the HTTP shims, a refused call as the coded 4xx', async () => {
    const listed = await stack.user.get('/mcp/tools');
    expect(listed.body.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    const created = await stack.user.post('/mcp/invoke', {
      name: 'create_workflow',
      arguments: { name: `shim-${randomUUID().slice(0, 8)}`, steps: [llmStep()] },
    });
    expect(created).toMatchObject({ status: 200, body: { result: { structuredContent: { uuid: expect.any(String) } } } });
    const got = await stack.user.post('/mcp/invoke', {
      name: 'get_workflow',
      arguments: { workflow_uuid: created.body.result.structuredContent.uuid },
    });
    expect(got.body.result.structuredContent.uuid).toBe(created.body.result.structuredContent.uuid);
    expect(await stack.user.post('/mcp/invoke', { name: 'get_workflow', arguments: { workflow_uuid: randomUUID() } })).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    expect((await stack.api.anonymous().get('/mcp/tools')).status).toBe(401);
  });

  it("shows a second user's key none of the first user's workflows or runs", async () => {
    stack.model.script(reply.text('mine'));
    const workflow = await createWorkflow([llmStep()]);
    const run = await runToEnd(workflow.uuid);
    const other = await McpTestClient.connect(await stack.api.newUser());
    try {
      expect(await other.ok('list_workflows')).toMatchObject({ items: [], total: 0 });
      expect(await other.ok('list_failed_runs')).toMatchObject({ items: [], total: 0 });
      expect(await other.call('get_workflow', { workflow_uuid: workflow.uuid })).toMatchObject({
        isError: true,
        structured: { code: 'NOT_FOUND' },
      });
      expect(await other.call('get_workflow_run', { run_uuid: run.uuid })).toMatchObject({
        isError: true,
        structured: { code: 'NOT_FOUND' },
      });
      expect(await other.call('run_workflow', { workflow_uuid: workflow.uuid })).toMatchObject({
        isError: true,
        structured: { code: 'NOT_FOUND' },
      });
    } finally {
      await other.close();
    }
  });

  it('answers 401 with a WWW-Authenticate challenge without a key or with a bad one', async () => {
    await expect(McpTestClient.connect(stack.user, null)).rejects.toThrow(/401|UNAUTHORIZED/);
    await expect(McpTestClient.connect(stack.user, 'sk_not_a_key')).rejects.toThrow(/401|UNAUTHORIZED/);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(stack.user), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="stepwise"');
    expect(await anonymous.json()).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('Authorization: Bearer') });
    const badKey = await post({ authorization: 'Bearer sk_not_a_key' });
    expect(badKey.status).toBe(401);
    expect(badKey.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const get = await fetch(mcpUrl(stack.user), { headers: { authorization: `Bearer ${stack.user.key}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
