import type { McpConnection } from '@app/contracts';
import { BUILTIN_TOOLS, END_TOOL } from '@app/domain';
import { callTimeoutMs, shortTools, type ResolvedTool } from './agent-tools.service';

const builtin = (name: string): ResolvedTool => ({
  spec: BUILTIN_TOOLS.concat(END_TOOL).find((tool) => tool.name === name)!,
  builtin: true,
});
const registered = (name: string, timeout_ms: number | null, mcp?: McpConnection): ResolvedTool => ({
  spec: { name, description: '', parameters: {} },
  builtin: false,
  record: {
    name,
    description: '',
    parameters: {},
    transport: mcp ? 'mcp' : 'http',
    timeout_ms,
    ...(mcp ? { mcp: { connection: mcp, tool: name } } : {}),
  },
});

describe(shortTools.name, () => {
  const mcpServer = { timeout_ms: 60_000 } as McpConnection;

  it('names the tools whose calls may take at most the threshold: an HTTP tool by its timeout, an MCP tool by its server’s', () => {
    const tools = [
      registered('fast', 5_000),
      registered('edge', 30_000),
      registered('long', 30_001),
      registered('docs.search', 60_000, mcpServer),
    ];

    expect(shortTools(tools, 30_000)).toEqual(['fast', 'edge']);
    expect(shortTools(tools, 60_000)).toEqual(['fast', 'edge', 'long', 'docs.search']);
  });

  it('counts the built-ins answered in the worker as instant, http_request by its 30 s, a tool without a timeout by the default', () => {
    expect([builtin('get_output'), builtin('end'), builtin('http_request'), registered('plain', null)].map(callTimeoutMs)).toEqual([
      0, 0, 30_000, 30_000,
    ]);
    expect(shortTools([builtin('get_output'), builtin('end'), builtin('http_request')], 1)).toEqual(['get_output', 'end']);
  });
});
