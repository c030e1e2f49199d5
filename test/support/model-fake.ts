// A real HTTP server speaking the chat-completions protocol, the one stand-in in our tests. It serves a
// script of responses in order, records every request, and fails loudly when the script runs out.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeReply {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface RecordedRequest {
  body: {
    model: string;
    messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    response_format?: unknown;
  };
  headers: IncomingMessage['headers'];
  received_at: number;
  aborted: boolean;
}

interface Options {
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

let callCounter = 0;

function completion(message: Record<string, unknown>, finish: string, options: Options): FakeReply {
  const usage = options.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    status: 200,
    delayMs: options.delayMs,
    body: {
      id: `chatcmpl-fake-${++callCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'fake-model',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** Factories of scripted answers. */
export const reply = {
  text: (content: string, options: Options = {}) => completion({ content }, 'stop', options),
  json: (value: unknown, options: Options = {}) => completion({ content: JSON.stringify(value) }, 'stop', options),
  toolCalls: (calls: { name: string; arguments: unknown }[], options: Options = {}) =>
    completion(
      {
        content: null,
        tool_calls: calls.map((call) => ({ id: `call_${++callCounter}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
      },
      'tool_calls',
      options,
    ),
  error: (status: number, options: { message?: string; retryAfterSeconds?: number; delayMs?: number } = {}): FakeReply => ({
    status,
    delayMs: options.delayMs,
    headers: options.retryAfterSeconds !== undefined ? { 'retry-after': String(options.retryAfterSeconds) } : {},
    body: { error: { message: options.message ?? `fake error ${status}`, type: 'fake_error', code: null } },
  }),
  malformed: (): FakeReply => ({ status: 200, raw: 'this is not json' }),
};

export class ModelFake {
  readonly requests: RecordedRequest[] = [];
  /** Requests that found the script empty: a test that gets any has failed. */
  readonly unexpected: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private fallback: ((request: RecordedRequest) => FakeReply) | null = null;
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ModelFake> {
    const fake: ModelFake = new ModelFake(createServer((req, res) => void fake.handle(req, res)));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  script(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers whatever the script does not cover (concurrent runs, benchmarks). */
  respondWith(handler: ((request: RecordedRequest) => FakeReply) | null): this {
    this.fallback = handler;
    return this;
  }

  get remaining(): number {
    return this.queue.length;
  }

  /** Resolves once `count` requests in all have arrived. */
  waitForRequests(count: number, timeoutMs = 30_000): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`model fake: ${this.requests.length}/${count} requests after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  assertDone(): void {
    if (this.unexpected.length) throw new Error(`model fake: ${this.unexpected.length} request(s) arrived after the script ran out`);
    if (this.queue.length) throw new Error(`model fake: ${this.queue.length} scripted response(s) were never requested`);
  }

  reset(): void {
    this.requests.length = 0;
    this.unexpected.length = 0;
    this.queue.length = 0;
    this.fallback = null;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      return;
    }
    const recorded: RecordedRequest = { body: JSON.parse(Buffer.concat(chunks).toString() || '{}'), headers: req.headers, received_at: Date.now(), aborted: false };
    this.requests.push(recorded);
    this.waiters = this.waiters.filter((waiter) => (this.requests.length >= waiter.count ? (waiter.resolve(), false) : true));
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });

    let answer = this.queue.shift() ?? this.fallback?.(recorded);
    if (!answer) {
      this.unexpected.push(recorded);
      answer = { status: 500, body: { error: { message: 'model fake: script exhausted' } } };
    }
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, answer.delayMs);
        res.on('close', () => (clearTimeout(timer), resolve()));
      });
    }
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
    res.end(answer.raw ?? JSON.stringify(answer.body));
  }
}
