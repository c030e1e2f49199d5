// TOOL_ANSWER_MAX_BYTES against real MCP servers through the SDK's own client: an answer past the cap ends
// the call with a final TOOL_ANSWER_TOO_LARGE (at once, not at the call's timeout) and the rest of it is
// never read, over streamable HTTP (an SSE answer) and over stdio; answers under the cap still arrive.
import type { McpHttpConnection, McpStdioConnection } from '@app/contracts';
import { HostileServer } from '../../../../test/support/hostile-server';
import { STDIO_SERVER } from '../../../../test/support/hostile-stdio-server';
import { EgressPolicy } from '../net/egress-fetch';
import { ToolCallError } from '../tools/tool-transport';
import { McpClientPool } from './mcp-client-pool';

const MiB = 1024 * 1024;

async function failureOf(promise: Promise<unknown>): Promise<ToolCallError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (error instanceof ToolCallError) return error;
  throw new Error(`expected a ToolCallError, got ${error === null ? 'an answer' : String(error)}`);
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe(McpClientPool.name, () => {
  let hostile: HostileServer;
  let sut: McpClientPool;
  let http: McpHttpConnection;

  beforeAll(async () => {
    hostile = await HostileServer.start();
    sut = new McpClientPool({ fetch: new EgressPolicy(['127.0.0.1/32']).fetch, stdioAllowed: true, answerMaxBytes: MiB });
    // A timeout far longer than the test's own: a call that waited for it would fail the test.
    http = {
      uuid: 'hostile-http',
      name: 'hostile',
      timeout_ms: 120_000,
      transport: 'streamable_http',
      url: hostile.url('/mcp'),
      headers: {},
    };
  });
  afterAll(async () => {
    await sut.close();
    await hostile.close();
  });

  it('answers under the cap over streamable HTTP, listing and calling', async () => {
    expect((await sut.listTools(http)).map((tool) => tool.name)).toEqual(['dump']);
    expect(textOf(await sut.callTool(http, 'dump', { bytes: 1000 }))).toBe('x'.repeat(1000));
  });

  it('ends a call whose SSE answer passes the cap at once, for good, and reads no further', async () => {
    const error = await failureOf(sut.callTool(http, 'dump', { bytes: 200 * MiB }));

    expect(error).toMatchObject({
      retryable: false,
      kind: 'too_large',
      message: expect.stringContaining('MCP server hostile, tool dump: TOOL_ANSWER_TOO_LARGE'),
    });
    const { written, whole } = await hostile.ended('/mcp');
    expect(whole).toBe(false);
    expect(written).toBeLessThan(16 * MiB);
    // The session is fine: the next call on it is answered.
    expect(textOf(await sut.callTool(http, 'dump', { bytes: 10 }))).toBe('x'.repeat(10));
  });

  it('ends a call whose stdio answer passes the cap, for good, and starts the server again for the next', async () => {
    const stdio: McpStdioConnection = {
      uuid: 'hostile-stdio',
      name: 'local',
      timeout_ms: 120_000,
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', STDIO_SERVER],
      env: {},
    };

    const error = await failureOf(sut.callTool(stdio, 'dump', { bytes: 50 * MiB }));

    expect(error).toMatchObject({
      retryable: false,
      kind: 'too_large',
      message: expect.stringContaining('MCP server local, tool dump: TOOL_ANSWER_TOO_LARGE'),
    });
    expect(textOf(await sut.callTool(stdio, 'dump', { bytes: 10 }))).toBe('x'.repeat(10));
  });
});
