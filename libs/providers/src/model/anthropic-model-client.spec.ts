// The real Anthropic SDK against the Messages API fake over HTTP: what reaches the provider, what comes
// back, and that failures are classified as the OpenAI client's are.
import type { ChatMessage } from '@app/contracts';
import { anthropicReply, startAnthropicFake } from '../../../../test/support/anthropic-fake';
import type { ModelFake } from '../../../../test/support/model-fake';
import { AnthropicModelClient } from './anthropic-model-client';
import { rejectionOf } from '../../../../test/support/rejection';
import { ModelCallError } from './model-call-error';
import type { ModelDelta, ModelRequest } from './model-client';

describe(AnthropicModelClient.name, () => {
  let fake: ModelFake;
  let sut: AnthropicModelClient;

  beforeAll(async () => {
    fake = await startAnthropicFake();
    sut = new AnthropicModelClient({ baseUrl: fake.origin, apiKey: 'test-key', timeoutMs: 5000, defaultMaxTokens: 512 });
  });
  afterEach(() => {
    fake.assertDone();
    fake.reset();
  });
  afterAll(() => fake.close());

  const messages: ChatMessage[] = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hi' },
  ];
  const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: 'claude-test', messages, ...overrides });

  const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, ModelCallError);

  it('sends the key, the system prompt and max_tokens to /v1/messages, and maps a text answer', async () => {
    fake.script(anthropicReply.text('hello', { usage: { input_tokens: 12, output_tokens: 3 } }));

    const response = await sut.complete(request());

    expect(response).toEqual({
      message: { role: 'assistant', content: 'hello' },
      finish_reason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      model: 'claude-test',
      duration_ms: expect.any(Number),
    });
    const [sent] = fake.requests;
    // This SDK sends the key as a bearer token (older ones as x-api-key).
    expect([sent.path, sent.headers['x-api-key'] ?? sent.headers.authorization, sent.headers['anthropic-version']]).toEqual([
      '/v1/messages',
      expect.stringContaining('test-key'),
      expect.any(String),
    ]);
    expect(sent.body).toEqual({
      model: 'claude-test',
      max_tokens: 512,
      system: 'be brief',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('round-trips tool use: the calls in our shape, then tool_use and tool_result blocks in Anthropic shape', async () => {
    fake.script(
      anthropicReply.toolUse([
        { name: 'search', input: { q: 'x' } },
        { name: 'fetch', input: { url: 'u' } },
      ]),
      anthropicReply.text('done'),
    );
    const tools = [{ name: 'search', description: 'find things', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];

    const first = await sut.complete(request({ tools }));
    const [search, fetchCall] = first.message.tool_calls!;
    const answered: ChatMessage[] = [
      ...messages,
      first.message,
      { role: 'tool', content: '{"r":1}', tool_call_id: search.id, name: 'search' },
      { role: 'tool', content: '{"r":2}', tool_call_id: fetchCall.id, name: 'fetch' },
    ];
    const second = await sut.complete(request({ tools, messages: answered }));

    expect(first).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: null,
        tool_calls: [
          { name: 'search', arguments: '{"q":"x"}' },
          { name: 'fetch', arguments: '{"url":"u"}' },
        ],
      },
    });
    expect(second.message.content).toBe('done');
    expect(fake.requests[0].body.tools).toEqual([{ name: 'search', description: 'find things', input_schema: tools[0].parameters }]);
    expect(fake.requests[1].body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: search.id, name: 'search', input: { q: 'x' } },
          { type: 'tool_use', id: fetchCall.id, name: 'fetch', input: { url: 'u' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: search.id, content: '{"r":1}' },
          { type: 'tool_result', tool_use_id: fetchCall.id, content: '{"r":2}' },
        ],
      },
    ]);
  });

  it('asks for structured output through the forced schema tool and answers its input as JSON text', async () => {
    const schema = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } };
    fake.script(anthropicReply.toolUse([{ name: 'step_output', input: { summary: 'short' } }]));

    const response = await sut.complete(request({ response_format: { type: 'json_schema', name: 'step_output', schema } }));

    expect([response.message, response.finish_reason]).toEqual([{ role: 'assistant', content: '{"summary":"short"}' }, 'stop']);
    expect(fake.requests[0].body).toMatchObject({
      tools: [{ name: 'step_output', input_schema: schema }],
      tool_choice: { type: 'tool', name: 'step_output' },
    });
  });

  it('streams through the SDK when asked: text and tool input pieces handed over, the same message and usage assembled', async () => {
    fake.script(
      anthropicReply.toolUse([{ name: 'search', input: { q: 'x' }, id: 'toolu_s1' }], {
        text: 'let me look',
        usage: { input_tokens: 9, output_tokens: 6 },
        stream: { pieceChars: 4 },
      }),
    );
    const deltas: ModelDelta[] = [];

    const response = await sut.complete(request({ tools: [{ name: 'search', description: 'd', parameters: { type: 'object' } }] }), {
      onDelta: (delta) => deltas.push(delta),
    });

    expect(response).toMatchObject({
      message: { role: 'assistant', content: 'let me look', tool_calls: [{ id: 'toolu_s1', name: 'search', arguments: '{"q":"x"}' }] },
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
    });
    expect(deltas).toEqual([
      { kind: 'text', text: 'let ' },
      { kind: 'text', text: 'me l' },
      { kind: 'text', text: 'ook' },
      { kind: 'tool_call', index: 0, id: 'toolu_s1', name: 'search' },
      { kind: 'tool_args', index: 0, text: '{"q"' },
      { kind: 'tool_args', index: 0, text: ':"x"' },
      { kind: 'tool_args', index: 0, text: '}' },
    ]);
    expect(fake.requests[0].body.stream).toBe(true);
  });

  it("streams a structured step's forced answer tool as text", async () => {
    const schema = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } };
    fake.script(anthropicReply.toolUse([{ name: 'step_output', input: { summary: 'short' } }], { stream: { pieceChars: 8 } }));
    const deltas: ModelDelta[] = [];

    const response = await sut.complete(request({ response_format: { type: 'json_schema', name: 'step_output', schema } }), {
      onDelta: (delta) => deltas.push(delta),
    });

    expect(response.message.content).toBe('{"summary":"short"}');
    expect(deltas.map((delta) => (delta.kind === 'text' ? delta.text : delta.kind)).join('')).toBe('{"summary":"short"}');
  });

  it('classifies a 529 as retryable with its retry-after, and sends it once', async () => {
    fake.script(anthropicReply.overloaded(2));

    const error = await failureOf(sut.complete(request()));

    expect(error).toMatchObject({
      kind: 'server',
      retryable: true,
      status: 529,
      retryAfterMs: 2000,
      message: 'model provider answered 529: Overloaded',
    });
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [429, 'rate_limited'],
    [500, 'server'],
    [408, 'timeout'],
  ])('classifies %i as retryable (%s), once', async (status, kind) => {
    fake.script(anthropicReply.error(status));

    expect(await failureOf(sut.complete(request()))).toMatchObject({ kind, retryable: true, status });
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [400, 'bad_request'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [422, 'unprocessable'],
  ])('classifies %i as final (%s) with the provider message', async (status, kind) => {
    fake.script(anthropicReply.error(status, { message: 'model: claude-9 not found', retryAfterSeconds: 5 }));

    const error = await failureOf(sut.complete(request()));

    expect(error).toMatchObject({
      kind,
      retryable: false,
      status,
      message: `model provider answered ${status}: model: claude-9 not found`,
    });
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('treats a 200 that is not a message as a retryable malformed response', async () => {
    fake.script({ status: 200, body: { type: 'message', id: 'x' } });

    expect(await failureOf(sut.complete(request()))).toMatchObject({ kind: 'malformed_response', retryable: true });
  });

  it('stops promptly when aborted during a slow answer, and the provider sees the disconnect', async () => {
    fake.script(anthropicReply.text('late', { delayMs: 30_000 }));
    const controller = new AbortController();
    const pending = failureOf(sut.complete(request(), { signal: controller.signal }));
    await fake.waitForRequests(1);

    controller.abort();

    expect(await pending).toMatchObject({ kind: 'aborted', retryable: false });
    await fake.waitUntil(() => fake.requests[0].aborted, 2000);
  });

  it('classifies its own timeout as retryable, once', async () => {
    const impatient = new AnthropicModelClient({ baseUrl: fake.origin, apiKey: 'k', timeoutMs: 200, defaultMaxTokens: 10 });
    fake.script(anthropicReply.text('late', { delayMs: 30_000 }));

    expect(await failureOf(impatient.complete(request()))).toMatchObject({ kind: 'timeout', retryable: true });
    await fake.waitUntil(() => fake.requests[0].aborted, 2000);
    expect(fake.requests).toHaveLength(1);
  });
});
