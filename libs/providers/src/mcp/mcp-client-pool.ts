// One MCP client per registered server per process, kept across calls: a streamable HTTP server keeps its
// session, a stdio server is started once. A connection that breaks (the server restarted, its process
// died, its session expired) is dropped and the next call opens a new one. The settings are part of the
// key, so an edited server gets a fresh connection.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpToolSource, type McpConnection, type McpToolInfo } from '@app/contracts';
import type { Fetch } from '../net/egress-fetch';
import { ToolCallError } from '../tools/tool-transport';
import { mcpCallError } from './mcp-errors';

export interface McpClientPoolOptions {
  /** The egress-checked fetch (EgressPolicy.fetch) every HTTP request to a server goes through. */
  fetch: Fetch;
  /** MCP_STDIO: whether this process may start stdio servers. */
  stdioAllowed: boolean;
}

interface PooledClient {
  key: string;
  client: Promise<Client>;
}

const MAX_TOOL_PAGES = 20;

export class McpClientPool extends McpToolSource {
  private readonly clients = new Map<string, PooledClient>();

  constructor(private readonly options: McpClientPoolOptions) {
    super();
  }

  async listTools(connection: McpConnection): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await this.withClient(connection, 'tools/list', undefined, (client) => client.listTools(cursor ? { cursor } : undefined, { timeout: connection.timeout_ms }));
      tools.push(...answer.tools.map((tool) => ({ name: tool.name, description: tool.description ?? tool.title ?? '', input_schema: tool.inputSchema as Record<string, unknown>, annotations: (tool.annotations as Record<string, unknown>) ?? null })));
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async callTool(connection: McpConnection, name: string, args: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<CallToolResult> {
    const timeout = options.timeoutMs ?? connection.timeout_ms;
    const call = (client: Client) => client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { timeout, signal: options.signal });
    return (await this.withClient(connection, `tool ${name}`, options.signal, call)) as CallToolResult;
  }

  /** Closes the server's connection, if this process has one (a deleted server's stdio process exits). */
  async forget(uuid: string): Promise<void> {
    const entry = this.clients.get(uuid);
    if (entry) await this.drop(uuid, entry);
  }

  /** Closes every connection (stdio servers exit). */
  async close(): Promise<void> {
    const pooled = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(pooled.map((entry) => closeQuietly(entry)));
  }

  /**
   * Runs `use` on the server's client. A session the server no longer knows (404) is reopened and the
   * request sent once more (it never ran); any other failure drops a broken connection and is classified.
   */
  private async withClient<T>(connection: McpConnection, what: string, signal: AbortSignal | undefined, use: (client: Client) => Promise<T>): Promise<T> {
    const label = `MCP server ${connection.name}, ${what}`;
    for (let attempt = 1; ; attempt++) {
      const pooled = this.pooled(connection);
      try {
        return await use(await pooled.client);
      } catch (error) {
        const expired = error instanceof StreamableHTTPError && error.code === 404 && attempt === 1;
        const failure = mcpCallError(error, label, signal);
        if (expired || failure.retryable || failure.kind === 'denied') await this.drop(connection.uuid, pooled);
        if (!expired) throw failure;
      }
    }
  }

  private pooled(connection: McpConnection): PooledClient {
    if (connection.transport === 'stdio' && !this.options.stdioAllowed) {
      throw new ToolCallError(`MCP server ${connection.name} is a stdio server and MCP_STDIO is off here`, false, { kind: 'invalid' });
    }
    const key = createHash('sha256').update(JSON.stringify(connection)).digest('hex');
    const current = this.clients.get(connection.uuid);
    if (current?.key === key) return current;
    if (current) void this.drop(connection.uuid, current);
    const entry: PooledClient = { key, client: this.connect(connection) };
    this.clients.set(connection.uuid, entry);
    // A failed connect is not kept: the next call tries again.
    entry.client.catch(() => this.clients.get(connection.uuid) === entry && this.clients.delete(connection.uuid));
    return entry;
  }

  private async connect(connection: McpConnection): Promise<Client> {
    const client = new Client({ name: 'stepwise', version: '1.0.0' });
    const transport = this.transportOf(connection);
    // The server closed the connection (its process died, the stream ended): forget it, reconnect next time.
    client.onclose = () => {
      const entry = this.clients.get(connection.uuid);
      if (entry) void entry.client.then((open) => open === client && this.clients.delete(connection.uuid), () => undefined);
    };
    try {
      await client.connect(transport, { timeout: connection.timeout_ms });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  }

  private transportOf(connection: McpConnection): Transport {
    if (connection.transport === 'stdio') {
      return new StdioClientTransport({ command: connection.command, args: connection.args, env: { ...getDefaultEnvironment(), ...connection.env }, stderr: 'ignore' });
    }
    return new StreamableHTTPClientTransport(new URL(connection.url), {
      fetch: (url, init) => this.options.fetch(String(url), init),
      requestInit: { headers: connection.headers },
    });
  }

  private async drop(uuid: string, entry: PooledClient): Promise<void> {
    if (this.clients.get(uuid) === entry) this.clients.delete(uuid);
    await closeQuietly(entry);
  }
}

async function closeQuietly(entry: PooledClient): Promise<void> {
  const client = await entry.client.catch(() => null);
  await client?.close().catch(() => undefined);
}
