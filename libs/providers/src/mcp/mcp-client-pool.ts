// One MCP client per registered server per process, kept across calls: a streamable HTTP server keeps its
// session, a stdio server is started once. A connection that breaks (the server restarted, its process
// died, its session expired) is dropped and the next call opens a new one. The settings are part of the
// key, so an edited server gets a fresh connection. No answer is read past TOOL_ANSWER_MAX_BYTES: over
// HTTP each response body is capped as it streams (McpAnswerCap), over stdio the SDK's read buffer is.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpToolSource, type McpConnection, type McpToolInfo } from '@app/contracts';
import { AnswerTooLargeError } from '../net/capped-body';
import type { Fetch } from '../net/egress-fetch';
import { DEFAULT_TOOL_ANSWER_MAX_BYTES } from '../tools/http-fetch';
import { ToolCallError } from '../tools/tool-transport';
import { McpAnswerCap } from './mcp-answer-cap';
import { mcpCallError } from './mcp-errors';

export interface McpClientPoolOptions {
  /** The egress-checked fetch (EgressPolicy.fetch) every HTTP request to a server goes through. */
  fetch: Fetch;
  /** MCP_STDIO: whether this process may start stdio servers. */
  stdioAllowed: boolean;
  /** TOOL_ANSWER_MAX_BYTES: the most one message from a server may be (DEFAULT_TOOL_ANSWER_MAX_BYTES unless given). */
  answerMaxBytes?: number;
}

interface PooledClient {
  key: string;
  client: Promise<Client>;
  /** A stdio server sent a message over the cap: the SDK closed the connection, failing the calls in flight. */
  overCap?: boolean;
}

/** What the SDK's stdio transport reports when a message passes its read buffer's size (maxBufferSize). */
const STDIO_OVER_CAP = /ReadBuffer exceeded maximum size/;

const MAX_TOOL_PAGES = 20;

export class McpClientPool extends McpToolSource {
  private readonly clients = new Map<string, PooledClient>();
  private readonly cap: McpAnswerCap;

  constructor(private readonly options: McpClientPoolOptions) {
    super();
    this.cap = new McpAnswerCap(options.answerMaxBytes ?? DEFAULT_TOOL_ANSWER_MAX_BYTES);
  }

  async listTools(connection: McpConnection): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await this.withClient(connection, 'tools/list', undefined, (client, signal) =>
        client.listTools(cursor ? { cursor } : undefined, { timeout: connection.timeout_ms, signal }),
      );
      tools.push(
        ...answer.tools.map((tool) => ({
          name: tool.name,
          description: tool.description ?? tool.title ?? '',
          input_schema: tool.inputSchema as Record<string, unknown>,
          annotations: (tool.annotations as Record<string, unknown>) ?? null,
        })),
      );
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async callTool(
    connection: McpConnection,
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<CallToolResult> {
    const timeout = options.timeoutMs ?? connection.timeout_ms;
    const call = (client: Client, capped: AbortSignal) =>
      client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, {
        timeout,
        signal: options.signal ? AbortSignal.any([options.signal, capped]) : capped,
      });
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
   * Runs `use` on the server's client, with the signal that ends it once an answer passes the cap. A
   * session the server no longer knows (404) is reopened and the request sent once more (it never ran);
   * any other failure drops a broken connection and is classified.
   */
  private async withClient<T>(
    connection: McpConnection,
    what: string,
    signal: AbortSignal | undefined,
    use: (client: Client, capped: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const label = `MCP server ${connection.name}, ${what}`;
    for (let attempt = 1; ; attempt++) {
      const pooled = this.pooled(connection);
      try {
        // The connection opens inside the call's context too: its first answers are capped for this call.
        return await this.cap.run(async (capped) => use(await pooled.client, capped));
      } catch (error) {
        const expired = error instanceof StreamableHTTPError && error.code === 404 && attempt === 1;
        const failure = mcpCallError(pooled.overCap ? new AnswerTooLargeError(this.cap.maxBytes) : error, label, signal);
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
    const entry = { key } as PooledClient;
    entry.client = this.connect(connection, entry);
    this.clients.set(connection.uuid, entry);
    // A failed connect is not kept: the next call tries again.
    entry.client.catch(() => this.clients.get(connection.uuid) === entry && this.clients.delete(connection.uuid));
    return entry;
  }

  private async connect(connection: McpConnection, entry: PooledClient): Promise<Client> {
    const client = new Client({ name: 'stepwise', version: '1.0.0' });
    const transport = this.transportOf(connection);
    client.onerror = (error) => {
      if (STDIO_OVER_CAP.test(error.message)) entry.overCap = true;
    };
    // The server closed the connection (its process died, the stream ended): forget it, reconnect next time.
    client.onclose = () => {
      const entry = this.clients.get(connection.uuid);
      if (entry)
        void entry.client.then(
          (open) => open === client && this.clients.delete(connection.uuid),
          () => undefined,
        );
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
      const env = { ...getDefaultEnvironment(), ...connection.env };
      return new StdioClientTransport({
        command: connection.command,
        args: connection.args,
        env,
        stderr: 'ignore',
        maxBufferSize: this.cap.maxBytes,
      });
    }
    return new StreamableHTTPClientTransport(new URL(connection.url), {
      fetch: async (url, init) => this.cap.response(await this.options.fetch(String(url), init)),
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
