// A small local HTTP server standing for a user's tool endpoints: POST /tools/<name> with JSON args.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolCallSeen {
  name: string;
  args: unknown;
  completed: boolean;
}

type Handler = (args: unknown) => unknown | Promise<unknown>;

export class ToolServer {
  readonly calls: ToolCallSeen[] = [];

  private constructor(
    private readonly server: Server,
    private readonly handlers: Record<string, Handler>,
  ) {}

  static async start(handlers: Record<string, Handler>): Promise<ToolServer> {
    const tools: ToolServer = new ToolServer(
      createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const name = decodeURIComponent(req.url?.replace(/^\/tools\//, '') ?? '');
        const seen: ToolCallSeen = { name, args: JSON.parse(Buffer.concat(chunks).toString() || 'null'), completed: false };
        tools.calls.push(seen);
        const handler = tools.handlers[name];
        if (!handler) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no tool ${name}` }));
          return;
        }
        const result = await handler(seen.args);
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result), () => (seen.completed = true));
      }),
      handlers,
    );
    await new Promise<void>((resolve) => tools.server.listen(0, '127.0.0.1', resolve));
    return tools;
  }

  url(name: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/tools/${name}`;
  }

  /** How many calls with these exact arguments reached the server. */
  countOf(name: string, args: unknown): number {
    return this.calls.filter((call) => call.name === name && JSON.stringify(call.args) === JSON.stringify(args)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
