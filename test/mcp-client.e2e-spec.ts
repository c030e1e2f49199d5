// Agents using tools of MCP servers end to end: the registry (secrets sealed, scoped per user), live
// discovery, save-time checks, and agent steps calling tools through the real model path, against an MCP
// server built here on the SDK's McpServer and the reference server from the npm registry.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { agentStep } from './support/factories';
import { McpTestServer } from './support/mcp-test-server';
import { EverythingHttpServer } from './support/everything-server';
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';

const toolMessages = (request: RecordedRequest) => request.body.messages.filter((message) => message.role === 'tool');
const offered = (request: RecordedRequest) => (request.body.tools ?? []).map((tool) => tool.function);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('MCP servers as tool sources', () => {
  let stack: Stack;
  let kit: McpTestServer;
  let everything: EverythingHttpServer;
  beforeAll(async () => {
    [kit, everything] = await Promise.all([McpTestServer.start(), EverythingHttpServer.start()]);
  });
  useStack((started) => (stack = started));
  afterAll(async () => {
    await kit?.close();
    await everything?.stop();
  });

  const register = async (body: Record<string, unknown>, user = stack.user): Promise<RunBody> => {
    const created = await user.post('/mcp-servers', {
      name: `kit_${randomUUID().slice(0, 6)}`,
      transport: 'streamable_http',
      url: kit.url,
      ...body,
    });
    expect(created.status).toBe(201);
    return created.body;
  };

  it('registers a server with its secret headers sealed and never returned, scoped to its user', async () => {
    const server = await register({ headers: { Authorization: 'Bearer s3cret-token' }, timeout_ms: 5000 });
    expect(server).toMatchObject({ transport: 'streamable_http', url: kit.url, header_names: ['Authorization'], timeout_ms: 5000 });
    expect(JSON.stringify(server)).not.toContain('s3cret');
    const listed = await stack.user.get('/mcp-servers');
    expect(listed.body.items.map((item: RunBody) => item.uuid)).toContain(server.uuid);
    expect(JSON.stringify(listed.body)).not.toContain('s3cret');

    // Discovery sends the header: the server saw it.
    expect((await stack.user.get(`/mcp-servers/${server.uuid}/tools`)).status).toBe(200);
    expect(kit.requestHeaders.some((headers) => headers.authorization === 'Bearer s3cret-token')).toBe(true);

    const patched = await stack.user.patch(`/mcp-servers/${server.uuid}`, { timeout_ms: 9000 });
    expect(patched.body).toMatchObject({ timeout_ms: 9000, header_names: ['Authorization'] });

    const other = await stack.api.newUser();
    for (const reply of [
      await other.get(`/mcp-servers/${server.uuid}`),
      await other.get(`/mcp-servers/${server.uuid}/tools`),
      await other.patch(`/mcp-servers/${server.uuid}`, { timeout_ms: 1000 }),
      await other.delete(`/mcp-servers/${server.uuid}`),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('NOT_FOUND');
    }
    expect((await other.get('/mcp-tools')).body.items).toEqual([]);
    expect((await stack.user.delete(`/mcp-servers/${server.uuid}`)).status).toBe(204);
    expect((await stack.user.get(`/mcp-servers/${server.uuid}`)).status).toBe(404);
  });

  it('refuses stdio servers while MCP_STDIO is off, denied addresses, and bad bodies, with coded 4xx', async () => {
    const stdio = await stack.user.post('/mcp-servers', { name: 'local', transport: 'stdio', command: process.execPath });
    expect(stdio.status).toBe(422);
    expect(stdio.body).toMatchObject({ code: 'MCP_STDIO_DISABLED', details: { field: 'transport' } });
    const metadata = await stack.user.post('/mcp-servers', {
      name: 'meta',
      transport: 'streamable_http',
      url: 'http://169.254.169.254/mcp',
    });
    expect(metadata.status).toBe(422);
    expect(metadata.body).toMatchObject({ code: 'EGRESS_DENIED', details: { field: 'url' } });
    const noUrl = await stack.user.post('/mcp-servers', { name: 'nourl', transport: 'streamable_http' });
    expect(noUrl.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'url' } });
    const dotted = await stack.user.post('/mcp-servers', { name: 'a.b', transport: 'streamable_http', url: kit.url });
    expect(dotted.status).toBe(422);
    const server = await register({});
    const taken = await stack.user.post('/mcp-servers', { name: server.name, transport: 'streamable_http', url: kit.url });
    expect(taken.status).toBe(409);
    expect((await stack.user.get('/mcp-servers')).body.items.filter((item: RunBody) => item.name === server.name)).toHaveLength(1);
  });

  it("lists a server's tools live, and names an unreachable server in a coded error", async () => {
    const server = await register({});
    const tools = (await stack.user.get(`/mcp-servers/${server.uuid}/tools`)).body.items;
    expect(tools.map((tool: RunBody) => tool.tool).sort()).toEqual(['add', 'big', 'echo', 'fail', 'lookup', 'slow']);
    expect(tools.find((tool: RunBody) => tool.tool === 'lookup')).toEqual({
      name: `${server.name}.lookup`,
      server: server.name,
      server_uuid: server.uuid,
      tool: 'lookup',
      model_name: `${server.name}__lookup`,
      description: 'Look a widget up by id',
      input_schema: expect.objectContaining({
        type: 'object',
        properties: { id: { type: 'string', description: 'The widget id' } },
        required: ['id'],
      }),
      annotations: { readOnlyHint: true },
    });

    const down = await register({
      name: `down_${randomUUID().slice(0, 6)}`,
      url: `http://127.0.0.1:${await closedPort()}/mcp`,
      timeout_ms: 2000,
    });
    const failed = await stack.user.get(`/mcp-servers/${down.uuid}/tools`);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE', details: { server: down.name } });
    expect(failed.body.message).toContain(down.name);

    const all = (await stack.user.get('/mcp-tools')).body;
    expect(all.items.map((tool: RunBody) => tool.name)).toEqual(expect.arrayContaining([`${server.name}.lookup`, `${server.name}.add`]));
    expect(all.errors).toEqual([expect.objectContaining({ server: down.name, code: 'MCP_SERVER_UNAVAILABLE' })]);
    await stack.user.delete(`/mcp-servers/${down.uuid}`);
  });

  it('refuses at save a step naming an MCP server the user does not have', async () => {
    const refused = await stack.user.post('/workflows', {
      name: 'wf-unknown-mcp',
      steps: [agentStep({ tools: ['http_request', 'nowhere.lookup'] })],
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'UNKNOWN_MCP_SERVER', details: { field: 'steps[0].tools[1]', server: 'nowhere' } });
  });

  it('lets an agent call MCP tools under model-safe names, audits each call, and hands an isError result to the model', async () => {
    const server = await register({});
    const sessionsBefore = kit.sessionsOpened;
    const lookup = `${server.name}__lookup`;
    stack.model.script(
      reply.toolCalls([
        { name: lookup, arguments: { id: '7' } },
        { name: `${server.name}__add`, arguments: { a: 2, b: 3 } },
      ]),
      reply.toolCalls([{ name: `${server.name}__fail`, arguments: {} }]),
      reply.text('Widget 7, 5, and out of stock'),
    );
    const run = await stack.runSteps([agentStep({ tools: [`${server.name}.lookup`, `${server.name}.add`, `${server.name}.fail`] })]);
    expect(run.status).toBe('completed');

    const [first, second, third] = stack.model.requests;
    expect(
      offered(first)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['get_output', `${server.name}__add`, `${server.name}__fail`, lookup]);
    expect(offered(first).find((tool) => tool.name === lookup)).toMatchObject({
      description: 'Look a widget up by id',
      parameters: { properties: { id: { type: 'string' } }, required: ['id'] },
    });
    expect(toolMessages(second).map((message) => JSON.parse(message.content!))).toEqual([{ id: '7', title: 'Widget 7' }, '5']);
    expect(JSON.parse(toolMessages(third)[2].content!)).toEqual({ error: expect.stringContaining('widget 42 is out of stock') });

    const calls = run.steps[0].tool_calls;
    expect(calls).toEqual([
      expect.objectContaining({
        tool_name: `${server.name}.lookup`,
        mcp_server: server.name,
        status: 'completed',
        input: { id: '7' },
        output: { id: '7', title: 'Widget 7' },
        error_message: null,
        duration_ms: expect.any(Number),
      }),
      expect.objectContaining({
        tool_name: `${server.name}.add`,
        mcp_server: server.name,
        status: 'completed',
        input: { a: 2, b: 3 },
        output: '5',
      }),
      expect.objectContaining({
        tool_name: `${server.name}.fail`,
        mcp_server: server.name,
        status: 'failed',
        output: null,
        error_message: expect.stringContaining('out of stock'),
      }),
    ]);
    expect(kit.calls.filter((call) => call.tool === 'lookup' && call.args.id === '7')).toHaveLength(1);
    // One session for the save's discovery (the API's pool), one for the agent's listing and its three calls (the worker's).
    expect(kit.sessionsOpened - sessionsBefore).toBe(2);
  });

  it('hands a large answer to the model as a reference to a stored output', async () => {
    const server = await register({});
    stack.model.script(reply.toolCalls([{ name: `${server.name}__big`, arguments: { size: 100_000 } }]), reply.text('read it'));
    const run = await stack.runSteps([agentStep({ tools: [`${server.name}.big`] })]);
    expect(run.status).toBe('completed');
    const answer = JSON.parse(toolMessages(stack.model.requests[1])[0].content!);
    expect(answer).toMatchObject({ output_id: expect.any(String), size_bytes: 100_000, note: expect.stringContaining('get_output') });
    expect(run.steps[0].tool_calls[0].output).toEqual(answer);
    const stored = await stack.user.get(`/outputs/${answer.output_id}`);
    expect(stored.body.raw_data).toBe('x'.repeat(100_000));
  });

  it('records a changed tool schema as drift on the next run', async () => {
    const server = await register({});
    const workflow = await stack.createWorkflow([agentStep({ tools: [`${server.name}.lookup`] })]);
    expect(workflow.tool_manifest).toEqual([
      expect.objectContaining({ name: `${server.name}.lookup`, description: 'Look a widget up by id' }),
    ]);
    kit.changeLookupSchema();
    stack.model.script(reply.text('done'));
    const started = await stack.startRun(workflow.uuid);
    const run = await stack.waitForRun(started.uuid);
    expect(run.tool_drift).toMatchObject({ tools: [{ name: `${server.name}.lookup`, change: 'changed', fields: ['parameters'] }] });
  });

  it('calls tools of the reference server (server-everything) over streamable HTTP', async () => {
    const created = await stack.user.post('/mcp-servers', { name: 'everything', transport: 'streamable_http', url: everything.url });
    expect(created.status).toBe(201);
    const tools = (await stack.user.get(`/mcp-servers/${created.body.uuid}/tools`)).body.items.map((tool: RunBody) => tool.tool);
    expect(tools).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    stack.model.script(
      reply.toolCalls([
        { name: 'everything__echo', arguments: { message: 'hi there' } },
        { name: 'everything__get-sum', arguments: { a: 20, b: 22 } },
      ]),
      reply.text('ok'),
    );
    const run = await stack.runSteps([agentStep({ tools: ['everything.echo', 'everything.get-sum'] })]);
    expect(run.status).toBe('completed');
    const answers = toolMessages(stack.model.requests[1]).map((message) => JSON.parse(message.content!));
    expect(answers[0]).toContain('hi there');
    expect(String(answers[1])).toContain('42');
    expect(run.steps[0].tool_calls.map((call: RunBody) => [call.tool_name, call.mcp_server, call.status])).toEqual([
      ['everything.echo', 'everything', 'completed'],
      ['everything.get-sum', 'everything', 'completed'],
    ]);
  });
});
