// The official MCP SDK client, over Streamable HTTP, with a stepwise API key: what an IDE's agent does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApiClient } from './api';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Structured = Record<string, any>;

export interface ToolOutcome {
  isError: boolean;
  structured: Structured;
  text: string;
}

export class McpTestClient {
  private constructor(private readonly client: Client) {}

  /** The MCP endpoint of the API `user` talks to, authenticated with `key` (default: the user's own). */
  static async connect(user: ApiClient, key: string | null = user.key): Promise<McpTestClient> {
    const client = new Client({ name: 'stepwise-e2e', version: '1.0.0' });
    const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(user), { requestInit: { headers } }));
    return new McpTestClient(client);
  }

  listTools() {
    return this.client.listTools();
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    const result = await this.client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text?: string }[];
    return {
      isError: result.isError === true,
      structured: (result.structuredContent ?? {}) as Structured,
      text: content.map((part) => part.text ?? '').join(''),
    };
  }

  /** The tool's structured content; throws with the coded error when the call was refused. */
  async ok(name: string, args: Record<string, unknown> = {}): Promise<Structured> {
    const outcome = await this.call(name, args);
    if (outcome.isError) throw new Error(`${name} refused: ${outcome.text}`);
    return outcome.structured;
  }

  /** Polls get_workflow_run until `done` holds or the deadline passes. */
  async waitForRun(runUuid: string, done: (run: Structured) => boolean, timeoutMs = 60_000): Promise<Structured> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.ok('get_workflow_run', { run_uuid: runUuid });
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runUuid} still ${run.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export const mcpUrl = (user: ApiClient): URL => new URL('/mcp', user.baseUrl);
