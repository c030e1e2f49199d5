// A small local HTTP server standing for a user's tool endpoints: POST /tools/<name> with JSON args, the
// handler's return value comes back as JSON. It records every call, so a test can check that the tool
// saw each completed call exactly once, and it can delay or fail calls by script.
//
//   const tools = await ToolServer.start({ handlers: { search_web: (args) => ({ price: 9 }) } });
//   tools.script('search_web', toolScript.fail(503), toolScript.delay(2000));   // then the handler again
//   ... endpoint_url: tools.url('search_web') ...
//   expect(tools.countOf('search_web', { q: 'x' })).toBe(1);
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Waiters } from './waiters';

export interface ToolCallSeen {
  name: string;
  /** The JSON body, or the raw text when it is not JSON. */
  args: unknown;
  headers: IncomingMessage['headers'];
  method: string;
  /** Date.now() when the call had arrived in full. */
  received_at: number;
  /** The status sent, null until then (or if the client went away first). */
  status: number | null;
  /** The answer was written in full. */
  completed: boolean;
  /** The client disconnected before the answer was written. */
  aborted: boolean;
}

/** An answer other than "the handler's value as JSON with 200": any status, headers, raw bytes. */
export class ToolResponse {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}

  static json(value: unknown, status = 200, headers: Record<string, string> = {}): ToolResponse {
    return new ToolResponse(status, JSON.stringify(value ?? null), { 'content-type': 'application/json', ...headers });
  }
}

export type ToolHandler = (args: unknown, call: ToolCallSeen) => unknown | Promise<unknown>;

/** What the next call of a tool does instead of (or before) running its handler. */
export interface ToolScriptStep {
  delayMs?: number;
  /** Answer this instead of running the handler. */
  response?: ToolResponse;
}

export const toolScript = {
  /** Answer `status` with `{"error": message}`. */
  fail: (status = 500, message = `tool server: scripted ${status}`, delayMs?: number): ToolScriptStep => ({
    delayMs,
    response: ToolResponse.json({ error: message }, status),
  }),
  /** Wait, then run the handler (interrupted when the client goes away). */
  delay: (delayMs: number): ToolScriptStep => ({ delayMs }),
  respond: (response: ToolResponse, delayMs?: number): ToolScriptStep => ({ delayMs, response }),
};

export interface ToolServerOptions {
  handlers: Record<string, ToolHandler>;
}

export class ToolServer {
  readonly calls: ToolCallSeen[] = [];
  private readonly scripts = new Map<string, ToolScriptStep[]>();
  private readonly waiters = new Waiters('tool server');

  private constructor(
    private readonly server: Server,
    private readonly handlers: Record<string, ToolHandler>,
  ) {}

  /** `start({ handlers: { name: fn } })`; `start({ name: fn })` is the same. */
  static async start(options: ToolServerOptions | Record<string, ToolHandler>): Promise<ToolServer> {
    const handlers = isOptions(options) ? options.handlers : options;
    const tools: ToolServer = new ToolServer(
      createServer((req, res) => {
        tools
          .handle(req, res)
          .catch((error: unknown) => answer(res, ToolResponse.json({ error: `tool server crashed: ${String(error)}` }, 500)));
      }),
      { ...handlers },
    );
    tools.server.keepAliveTimeout = 60_000; // as in the model fake: no ECONNRESET on a reused idle socket
    await new Promise<void>((resolve) => tools.server.listen(0, '127.0.0.1', resolve));
    return tools;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(name: string): string {
    return `${this.baseUrl}/tools/${encodeURIComponent(name)}`;
  }

  /** Adds or replaces a handler. */
  setHandler(name: string, handler: ToolHandler): this {
    this.handlers[name] = handler;
    return this;
  }

  /** The next calls of `name` follow these steps, one per call, before falling back to the handler. */
  script(name: string, ...steps: ToolScriptStep[]): this {
    this.scripts.set(name, [...(this.scripts.get(name) ?? []), ...steps]);
    return this;
  }

  /** How many calls of `name` reached the server, or only those with exactly these arguments. */
  countOf(name: string, ...args: [unknown?]): number {
    const key = args.length ? JSON.stringify(args[0]) : null;
    return this.calls.filter((call) => call.name === name && (key === null || JSON.stringify(call.args) === key)).length;
  }

  /** Calls per tool name. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) counts[call.name] = (counts[call.name] ?? 0) + 1;
    return counts;
  }

  /** Resolves once `count` calls in all (or of `name`) have arrived. */
  waitForCalls(count: number, options: { name?: string; timeoutMs?: number } = {}): Promise<void> {
    const seen = () => (options.name === undefined ? this.calls.length : this.countOf(options.name));
    return this.waitUntil(
      () => seen() >= count,
      options.timeoutMs,
      () => `${seen()}/${count} calls${options.name ? ` of ${options.name}` : ''}`,
    );
  }

  /** Resolves when `condition` holds, checked whenever a call arrives, is answered or is abandoned. */
  waitUntil(condition: () => boolean, timeoutMs = 30_000, describe: () => string = () => 'condition not met'): Promise<void> {
    return this.waiters.until(condition, timeoutMs, describe);
  }

  /** Forgets calls and scripts; handlers stay. */
  reset(): void {
    this.calls.length = 0;
    this.scripts.clear();
  }

  close(): Promise<void> {
    this.waiters.rejectAll();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private notify(): void {
    this.waiters.notify();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0];
    const name = path.startsWith('/tools/') ? decodeURIComponent(path.slice('/tools/'.length)) : '';
    const text = Buffer.concat(chunks).toString('utf8');
    let args: unknown = text;
    try {
      args = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the handler gets the text
    }
    const seen: ToolCallSeen = {
      name,
      args,
      headers: req.headers,
      method: req.method ?? 'GET',
      received_at: Date.now(),
      status: null,
      completed: false,
      aborted: false,
    };
    this.calls.push(seen);
    res.on('close', () => {
      if (!res.writableFinished) seen.aborted = true;
      this.notify();
    });
    this.notify();

    const step = this.scripts.get(name)?.shift();
    if (step?.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, step.delayMs);
        res.once('close', () => (clearTimeout(timer), resolve()));
      });
    }
    if (res.destroyed) return;
    let response = step?.response;
    if (!response) {
      const handler = this.handlers[name];
      if (!handler) {
        response = ToolResponse.json({ error: `tool server: no tool ${name}` }, 404);
      } else {
        try {
          const result = await handler(args, seen);
          response = result instanceof ToolResponse ? result : ToolResponse.json(result);
        } catch (error) {
          response = ToolResponse.json({ error: error instanceof Error ? error.message : String(error) }, 500);
        }
      }
    }
    if (res.destroyed) return;
    seen.status = response.status;
    answer(res, response, () => {
      seen.completed = true;
      this.notify();
    });
  }
}

function isOptions(options: ToolServerOptions | Record<string, ToolHandler>): options is ToolServerOptions {
  return typeof (options as { handlers?: unknown }).handlers === 'object' && (options as { handlers?: unknown }).handlers !== null;
}

function answer(res: ServerResponse, response: ToolResponse, done?: () => void): void {
  if (res.destroyed || res.writableEnded) return;
  if (!res.headersSent) res.writeHead(response.status, response.headers);
  res.end(response.body, done);
}
