// stdio MCP servers where the operator allows them (MCP_STDIO=on): the reference server from the npm
// registry started by stepwise itself, its sealed environment passed to the process.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { agentStep } from './support/factories';
import { EVERYTHING_ENTRY } from './support/everything-server';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';

describe('stdio MCP servers', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { mcpStdio: true });

  it('starts the server, lists its tools and lets an agent call two of them', async () => {
    const mark = randomUUID();
    const created = await stack.user.post('/mcp-servers', {
      name: 'local',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING_ENTRY, 'stdio'],
      env: { STEPWISE_MARK: mark },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ transport: 'stdio', command: process.execPath, env_names: ['STEPWISE_MARK'], url: null });
    expect(JSON.stringify(created.body)).not.toContain(mark);

    const tools = (await stack.user.get(`/mcp-servers/${created.body.uuid}/tools`)).body.items.map((tool: RunBody) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['local.echo', 'local.get-env']));

    stack.model.script(
      reply.toolCalls([
        { name: 'local__echo', arguments: { message: 'over stdio' } },
        { name: 'local__get-env', arguments: {} },
      ]),
      reply.text('ok'),
    );
    const run = await stack.runSteps([agentStep({ tools: ['local.echo', 'local.get-env'] })]);
    expect(run.status).toBe('completed');
    const [echo, env] = stack.model.requests[1].body.messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    expect(echo).toContain('over stdio');
    expect(env).toContain(mark);
    expect(run.steps[0].tool_calls.map((call: RunBody) => [call.tool_name, call.mcp_server, call.status])).toEqual([
      ['local.echo', 'local', 'completed'],
      ['local.get-env', 'local', 'completed'],
    ]);
  });

  it('starts a stdio server once per worker, and again when its process died', async () => {
    const created = await stack.user.post('/mcp-servers', {
      name: 'pids',
      transport: 'stdio',
      command: process.execPath,
      args: [path.resolve(__dirname, 'fixtures/pid-mcp-server.js')],
    });
    expect(created.status).toBe(201);
    const pidsOf = async (calls: number): Promise<number[]> => {
      stack.model.reset();
      stack.model.script(reply.toolCalls(Array.from({ length: calls }, () => ({ name: 'pids__pid', arguments: {} }))), reply.text('ok'));
      const run = await stack.runSteps([agentStep({ tools: ['pids.pid'] })]);
      expect(run.status).toBe('completed');
      return stack.model.requests[1].body.messages
        .filter((message) => message.role === 'tool')
        .map((message) => Number(JSON.parse(message.content!)));
    };

    const [first, second] = await pidsOf(2);
    expect(second).toBe(first);
    expect((await pidsOf(1))[0]).toBe(first);
    process.kill(first, 'SIGKILL');
    const [restarted] = await pidsOf(1);
    expect(restarted).toEqual(expect.any(Number));
    expect(restarted).not.toBe(first);
  });
});
