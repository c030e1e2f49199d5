// An MCP server of the specs' own, on the SDK's McpServer over streamable HTTP (sessions kept, one server
// per session): tools whose schemas, error results and timing a spec controls, and a record of every call.
//
//   const kit = await McpTestServer.start();    // kit.url
//   kit.calls.filter((call) => call.tool === 'slow' && call.completed)
//   kit.changeLookupSchema();                    // `lookup` now also requires `locale` (drift)
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpCallSeen {
  tool: string;
  args: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  completed: boolean;
}

const LOOKUP_BASE = { id: z.string().describe('The widget id') };
const LOOKUP_WITH_LOCALE = { ...LOOKUP_BASE, locale: z.string().describe('A BCP 47 locale') };

export class McpTestServer {
  readonly calls: McpCallSeen[] = [];
  /** Headers of every HTTP request (an Authorization header travels on each). */
  readonly requestHeaders: IncomingHttpHeaders[] = [];
  /** Sessions clients opened (an initialize each): what connection reuse keeps low. */
  sessionsOpened = 0;
  /** Runs inside every call before it answers (a crash spec kills the worker here). */
  beforeAnswer: (call: McpCallSeen) => Promise<void> = async () => undefined;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  private readonly lookups: RegisteredTool[] = [];
  private lookupWithLocale = false;
  private currentHeaders: IncomingHttpHeaders = {};

  private constructor(private readonly http: Server) {}

  static async start(): Promise<McpTestServer> {
    const http = createServer();
    const server = new McpTestServer(http);
    http.on('request', (req, res) => {
      server.requestHeaders.push(req.headers);
      server.currentHeaders = req.headers;
      const sessionId = req.headers['mcp-session-id'];
      const transport = typeof sessionId === 'string' ? server.sessions.get(sessionId) : server.newSession();
      if (!transport)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      transport.handleRequest(req, res).catch((error: unknown) => res.headersSent || res.writeHead(500).end(String(error)));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  /** `lookup` takes a required `locale` from now on, in every open session too (the SDK tells clients the list changed). */
  changeLookupSchema(): void {
    this.lookupWithLocale = true;
    for (const tool of this.lookups) tool.update({ paramsSchema: LOOKUP_WITH_LOCALE });
  }

  completedCalls(tool: string): McpCallSeen[] {
    return this.calls.filter((call) => call.tool === tool && call.completed);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((transport) => transport.close()));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private newSession(): StreamableHTTPServerTransport {
    this.sessionsOpened += 1;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
    });
    transport.onclose = () => transport.sessionId && this.sessions.delete(transport.sessionId);
    void this.serverFor().connect(transport);
    return transport;
  }

  private async record(tool: string, args: Record<string, unknown>): Promise<McpCallSeen> {
    const call = { tool, args, headers: this.currentHeaders, completed: false };
    this.calls.push(call);
    await this.beforeAnswer(call);
    return call;
  }

  private serverFor(): McpServer {
    const server = new McpServer({ name: 'kit', version: '1.0.0' });
    const lookup = server.registerTool(
      'lookup',
      {
        description: 'Look a widget up by id',
        inputSchema: this.lookupWithLocale ? LOOKUP_WITH_LOCALE : LOOKUP_BASE,
        annotations: { readOnlyHint: true },
      },
      async (args) => {
        const call = await this.record('lookup', args);
        call.completed = true;
        return {
          content: [{ type: 'text', text: JSON.stringify({ id: args.id, title: `Widget ${args.id}` }) }],
          structuredContent: { id: args.id, title: `Widget ${args.id}` },
        };
      },
    );
    this.lookups.push(lookup);
    server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async (args) => {
      const call = await this.record('add', args);
      call.completed = true;
      return { content: [{ type: 'text', text: String(args.a + args.b) }] };
    });
    server.registerTool('fail', { description: 'Always reports an error', inputSchema: {} }, async (args) => {
      const call = await this.record('fail', args);
      call.completed = true;
      return { isError: true, content: [{ type: 'text', text: 'widget 42 is out of stock' }] };
    });
    // The bench's tool: its arguments back, at once.
    server.registerTool('echo', { description: 'Answers its arguments', inputSchema: z.looseObject({}) }, async (args) => {
      const call = await this.record('echo', args);
      call.completed = true;
      return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: { ok: true, args } };
    });
    server.registerTool('big', { description: 'Answers size characters', inputSchema: { size: z.number() } }, async (args) => {
      const call = await this.record('big', args);
      call.completed = true;
      return { content: [{ type: 'text', text: 'x'.repeat(args.size) }] };
    });
    server.registerTool('slow', { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } }, async (args) => {
      const call = await this.record('slow', args);
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      call.completed = true;
      return { content: [{ type: 'text', text: `slept ${args.ms} ms` }] };
    });
    return server;
  }
}
