// A real HTTP server speaking the chat-completions protocol, the one stand-in in our tests. It serves a
// script of responses in order, records every request, and fails loudly when the script runs out.
//
//   const fake = await ModelFake.start();               // OpenAI-compatible base URL: fake.baseUrl
//   fake.script(reply.toolCalls([{ name: 'search', arguments: { q: 'x' } }]), reply.json({ done: true }));
//   ... exercise the code ...
//   expect(fake.requests[0].body.tools).toHaveLength(1);
//   fake.assertDone();                                   // throws on leftovers or unexpected requests
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ECHO_MODEL, retryHeaders, send, type ErrorOptions, type FakeReply } from './fake-http';
import { streamOf, writeStream, type StreamOptions } from './fake-stream';
import { Waiters } from './waiters';

export type { ErrorOptions, FakeReply } from './fake-http';

export interface RecordedMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: {
    model: string;
    messages: RecordedMessage[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    response_format?: unknown;
    temperature?: number;
    stream?: boolean;
    [key: string]: unknown;
  };
  headers: IncomingMessage['headers'];
  /** Date.now() when the request had arrived in full. */
  received_at: number;
  /** The status the fake answered, null until it has (or if the client went away first). */
  status: number | null;
  /** The client disconnected before the answer was written (a cancelled or timed-out call). */
  aborted: boolean;
  /** A streamed answer: when each chunk was written (Date.now()), the first the role's, the next ones its pieces. */
  chunks_at?: number[];
}

export interface ReplyOptions {
  delayMs?: number;
  /** How the answer streams when the request asks for a stream. */
  stream?: StreamOptions;
  /** `cached_tokens`: of the prompt's, those served from the provider's cache (sent as prompt_tokens_details). */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  finishReason?: string;
}

export type ReplyHandler = (request: RecordedRequest) => FakeReply;

const DEFAULT_USAGE: NonNullable<ReplyOptions['usage']> = { prompt_tokens: 10, completion_tokens: 5 };

let completionCounter = 0;
let toolCallCounter = 0;

function completion(message: Record<string, unknown>, finish: string, options: ReplyOptions): FakeReply {
  const { cached_tokens, ...usage } = options.usage ?? DEFAULT_USAGE;
  return {
    status: 200,
    delayMs: options.delayMs,
    stream: options.stream,
    body: {
      id: `chatcmpl-fake-${++completionCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: ECHO_MODEL,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', refusal: null, ...message },
          finish_reason: options.finishReason ?? finish,
          logprobs: null,
        },
      ],
      usage: {
        ...usage,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        ...(cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens } } : {}),
      },
    },
  };
}

/** Factories of scripted answers. */
export const reply = {
  text: (content: string, options: ReplyOptions = {}): FakeReply => completion({ content }, 'stop', options),
  /** The content is the JSON text of `value`, as a model answering with a response_format writes it. */
  json: (value: unknown, options: ReplyOptions = {}): FakeReply => completion({ content: JSON.stringify(value) }, 'stop', options),
  /**
   * Tool calls with ids `call_1`, `call_2`, ... (unique within the process). Object arguments are sent as
   * their JSON text; a string is sent as is, so a test can hand the code malformed arguments.
   */
  toolCalls: (calls: { name: string; arguments: unknown; id?: string }[], options: ReplyOptions = {}): FakeReply =>
    completion(
      {
        content: null,
        tool_calls: calls.map((call) => ({
          id: call.id ?? `call_${++toolCallCounter}`,
          type: 'function',
          function: {
            name: call.name,
            arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
          },
        })),
      },
      'tool_calls',
      options,
    ),
  /** The provider's error shape: `{"error": {"message", "type", "code"}}`, with retry headers if asked. */
  error: (status: number, options: ErrorOptions = {}): FakeReply => ({
    status,
    delayMs: options.delayMs,
    headers: retryHeaders(options),
    body: { error: { message: options.message ?? `model fake: error ${status}`, type: 'fake_error', param: null, code: null } },
  }),
  /** A 200 whose body is not JSON. */
  malformed: (options: { delayMs?: number; raw?: string } = {}): FakeReply => ({
    status: 200,
    raw: options.raw ?? 'this is not json',
    delayMs: options.delayMs,
  }),
};

/**
 * Answers, in this order of precedence: `autoReply` (every request, no delay), the script (in order),
 * `respondWith` (the fallback). A request none of them answers gets a 500 and is recorded as unexpected.
 */
export class ModelFake {
  readonly requests: RecordedRequest[] = [];
  /** Requests the fake could not answer as asked (script exhausted, unknown route, bad body): a test that gets any has failed. */
  readonly unexpected: { request: RecordedRequest; reason: string }[] = [];
  private readonly queue: FakeReply[] = [];
  private fallback: ReplyHandler | null = null;
  private auto: ReplyHandler | null = null;
  /** A provider account's requests per rolling minute, when limited; the times of the requests it took. */
  private limit: { perMinute: number; taken: number[] } | null = null;
  private readonly waiters = new Waiters('model fake');

  private constructor(
    private readonly server: Server,
    private readonly route: string,
  ) {}

  /** `route`: the one POST it answers (Anthropic's fake, test/support/anthropic-fake.ts, serves /v1/messages). */
  static async start(route = '/v1/chat/completions'): Promise<ModelFake> {
    const fake: ModelFake = new ModelFake(
      createServer((req, res) => {
        fake.handle(req, res).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `model fake crashed: ${String(error)}` } }));
        });
      }),
      route,
    );
    // Longer than clients keep idle sockets: a socket the server closes as the client reuses it is a flaky ECONNRESET.
    fake.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The OpenAI base URL, `http://127.0.0.1:<port>/v1`. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** `http://127.0.0.1:<port>`: Anthropic's SDK adds /v1 itself. */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues answers, served one per request in order. */
  script(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers whatever the script does not cover (concurrent runs where the order is not known). */
  respondWith(handler: ReplyHandler | null): this {
    this.fallback = handler;
    return this;
  }

  /** Benchmarks: answer every request at once from `handler` (delays ignored), ahead of any script. */
  autoReply(handler: ReplyHandler | null = () => reply.text('ok')): this {
    this.auto = handler;
    return this;
  }

  /** Scripted answers not yet requested. */
  get remaining(): number {
    return this.queue.length;
  }

  /** Resolves once `count` requests in all have arrived. */
  waitForRequests(count: number, timeoutMs = 30_000): Promise<void> {
    return this.waitUntil(
      () => this.requests.length >= count,
      timeoutMs,
      () => `${this.requests.length}/${count} requests`,
    );
  }

  /** Resolves when `condition` holds, checked whenever a request arrives, is answered or is abandoned. */
  waitUntil(condition: () => boolean, timeoutMs = 30_000, describe: () => string = () => 'condition not met'): Promise<void> {
    return this.waiters.until(condition, timeoutMs, describe);
  }

  /** Throws if a request went unanswered as scripted or scripted answers were never requested. */
  assertDone(): void {
    const problems: string[] = [];
    for (const { request, reason } of this.unexpected)
      problems.push(`${request.method} ${request.path}: ${reason} (${describeRequest(request)})`);
    if (this.queue.length) problems.push(`${this.queue.length} scripted response(s) were never requested`);
    if (problems.length) throw new Error(`model fake:\n  ${problems.join('\n  ')}`);
  }

  /** Forgets requests, script and handlers; the server keeps its port. */
  /**
   * Answers as a rate-limited provider account: past `perMinute` requests in the last 60 s, a 429 with
   * `retry-after` (seconds until the oldest leaves the window); the refused requests are not counted. null: no limit.
   */
  rateLimit(perMinute: number | null): this {
    this.limit = perMinute === null ? null : { perMinute, taken: [] };
    return this;
  }

  /** Requests the rate limit refused (429). */
  get rateLimited(): number {
    return this.requests.filter((request) => request.status === 429).length;
  }

  /** A 429 when the rolling minute is full; else the request is counted in it. */
  private overLimit(now: number): FakeReply | null {
    if (!this.limit) return null;
    const taken = this.limit.taken.filter((at) => at > now - 60_000);
    this.limit.taken = taken;
    if (taken.length < this.limit.perMinute) {
      taken.push(now);
      return null;
    }
    const retryAfterMs = taken[0] + 60_000 - now;
    return reply.error(429, { message: 'model fake: rate limit reached', retryAfterMs, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) });
  }

  reset(): void {
    this.limit = null;
    this.requests.length = 0;
    this.unexpected.length = 0;
    this.queue.length = 0;
    this.fallback = null;
    this.auto = null;
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
    if (req.method === 'GET' && path === '/v1/models') {
      send(res, {
        status: 200,
        body: { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'model-fake' }] },
      });
      return;
    }

    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      body: { model: '', messages: [] },
      headers: req.headers,
      received_at: Date.now(),
      status: null,
      aborted: false,
    };
    let problem: string | null = null;
    try {
      recorded.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      problem = 'the body is not JSON';
    }
    if (req.method !== 'POST' || path !== this.route) problem = `no such route (only POST ${this.route} and GET /v1/models)`;

    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
      this.notify();
    });
    this.notify();

    let answer: FakeReply | undefined;
    const limited = problem ? null : this.overLimit(recorded.received_at);
    try {
      if (problem) answer = { status: 400, body: { error: { message: `model fake: ${problem}` } } };
      else if (limited) answer = limited;
      else if (this.auto) answer = { ...this.auto(recorded), delayMs: undefined };
      else answer = this.queue.shift() ?? this.fallback?.(recorded);
    } catch (error) {
      problem = `the reply handler threw: ${String(error)}`;
    }
    if (!answer) {
      problem ??= 'script exhausted';
      answer = { status: 500, body: { error: { message: `model fake: ${problem}` } } };
    }
    if (problem) this.unexpected.push({ request: recorded, reason: problem });

    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, answer.delayMs);
        res.once('close', () => (clearTimeout(timer), resolve()));
      });
    }
    if (res.destroyed || res.writableEnded) return;
    recorded.status = answer.status;
    // Asked for a stream, a 200 answer streams: the same answer in the provider's chunks (fake-stream.ts).
    if (recorded.body?.stream === true && answer.status === 200 && answer.raw === undefined) {
      const includeUsage = (recorded.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      recorded.chunks_at = [];
      const chunksAt = recorded.chunks_at;
      await writeStream(res, streamOf(answer, this.route, recorded.body.model || 'fake-model', includeUsage), answer.stream, (at) =>
        chunksAt.push(at),
      );
      this.notify();
      return;
    }
    send(res, answer, recorded.body?.model);
  }
}

function describeRequest(request: RecordedRequest): string {
  const messages = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const last = messages[messages.length - 1];
  const content = typeof last?.content === 'string' ? last.content.slice(0, 80) : '';
  return `model ${request.body?.model ?? '?'}, ${messages.length} message(s), last ${last?.role ?? '-'}: ${JSON.stringify(content)}`;
}
