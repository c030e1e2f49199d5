// The real client against the real model fake over HTTP: what reaches the provider, what comes back,
// and how every kind of failure is classified.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '@app/contracts';
import { ModelFake, reply } from '../../../../test/support/model-fake';
import { rejectionOf } from '../../../../test/support/rejection';
import { ModelCallError } from './model-call-error';
import type { ModelDelta, ModelRequest } from './model-client';
import { OpenAiModelClient } from './openai-model-client';

describe(OpenAiModelClient.name, () => {
  let fake: ModelFake;
  let sut: OpenAiModelClient;

  beforeAll(async () => {
    fake = await ModelFake.start();
    sut = new OpenAiModelClient({ baseUrl: fake.baseUrl, apiKey: 'test-key', timeoutMs: 5000 });
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
  const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: 'gpt-test', messages, ...overrides });

  const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, ModelCallError);

  it('sends a plain request as the provider expects and maps a text answer', async () => {
    fake.script(reply.text('hello'));

    const response = await sut.complete(request());

    expect(response).toEqual({
      message: { role: 'assistant', content: 'hello' },
      finish_reason: 'stop',
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      model: 'gpt-test',
      duration_ms: expect.any(Number),
    });
    const [sent] = fake.requests;
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(sent.body).toEqual({ model: 'gpt-test', messages }); // no empty tools, no response_format
  });

  it('streams when asked: the same answer, usage from the last chunk, every text and tool-call piece handed over in order', async () => {
    const call = { id: 'call_s1', name: 'search', arguments: { q: 'streamed' } };
    fake.script(
      reply.text('hello world', { stream: { pieceChars: 3 }, usage: { prompt_tokens: 7, completion_tokens: 4 } }),
      reply.toolCalls([call], { stream: { pieceChars: 5 } }),
    );
    const deltas: ModelDelta[] = [];

    const text = await sut.complete(request(), { onDelta: (delta) => deltas.push(delta) });
    const tools = await sut.complete(request({ tools: [{ name: 'search', description: 'd', parameters: { type: 'object' } }] }), {
      onDelta: (delta) => deltas.push(delta),
    });

    expect(text).toMatchObject({
      message: { role: 'assistant', content: 'hello world' },
      finish_reason: 'stop',
      usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
      model: 'gpt-test',
    });
    expect(tools.message.tool_calls).toEqual([{ id: 'call_s1', name: 'search', arguments: '{"q":"streamed"}' }]);
    expect(tools.finish_reason).toBe('tool_calls');
    expect(deltas.filter((delta) => delta.kind === 'text').map((delta) => delta.text)).toEqual(['hel', 'lo ', 'wor', 'ld']);
    expect(deltas.filter((delta) => delta.kind !== 'text')).toEqual([
      { kind: 'tool_call', index: 0, id: 'call_s1', name: 'search' },
      { kind: 'tool_args', index: 0, text: '{"q":' },
      { kind: 'tool_args', index: 0, text: '"stre' },
      { kind: 'tool_args', index: 0, text: 'amed"' },
      { kind: 'tool_args', index: 0, text: '}' },
    ]);
    expect(fake.requests.map((sent) => [sent.body.stream, sent.body.stream_options])).toEqual([
      [true, { include_usage: true }],
      [true, { include_usage: true }],
    ]);
  });

  it('classifies a streamed call refused before its first chunk like any other (429 with its retry-after)', async () => {
    fake.script(reply.error(429, { retryAfterMs: 300 }));

    const error = await failureOf(sut.complete(request(), { onDelta: () => undefined }));

    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 300 });
  });

  it('sends no Authorization header without a key (a local server that takes none)', async () => {
    const keyless = new OpenAiModelClient({ baseUrl: fake.baseUrl, apiKey: null, timeoutMs: 5000 });
    fake.script(reply.text('hello'));

    expect((await keyless.complete(request())).message.content).toBe('hello');
    expect(fake.requests[0].headers).not.toHaveProperty('authorization');
  });

  it('sends tools, the JSON schema response format and the temperature, and maps a JSON answer and its usage', async () => {
    fake.script(reply.json({ summary: 'short' }, { usage: { prompt_tokens: 12, completion_tokens: 3 } }));
    const schema = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } };

    const response = await sut.complete(
      request({
        tools: [{ name: 'search', description: 'find things', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
        response_format: { type: 'json_schema', name: 'step_output', schema },
        temperature: 0.2,
      }),
    );

    expect(JSON.parse(response.message.content!)).toEqual({ summary: 'short' });
    expect(response.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(fake.requests[0].body).toEqual({
      model: 'gpt-test',
      messages,
      tools: [
        {
          type: 'function',
          function: { name: 'search', description: 'find things', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
        },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'step_output', schema, strict: false } },
      temperature: 0.2,
    });
  });

  it('sends the json_object response format', async () => {
    fake.script(reply.json({ ok: true }));

    await sut.complete(request({ response_format: { type: 'json_object' } }));

    expect(fake.requests[0].body.response_format).toEqual({ type: 'json_object' });
  });

  it('round-trips tool calls: the answer in our shape, then the assistant and tool messages in the provider shape', async () => {
    fake.script(
      reply.toolCalls([
        { name: 'search', arguments: { q: 'x' } },
        { name: 'fetch', arguments: '{"url": broken' },
      ]),
      reply.text('done'),
    );

    const first = await sut.complete(request());
    const [search, fetchCall] = first.message.tool_calls!;
    const toolMessages: ChatMessage[] = [
      { role: 'tool', content: '{"r":1}', tool_call_id: search.id, name: 'search' },
      { role: 'tool', content: '{"error":"bad arguments"}', tool_call_id: fetchCall.id, name: 'fetch' },
    ];
    const second = await sut.complete(request({ messages: [...messages, first.message, ...toolMessages] }));

    expect(first).toMatchObject({ finish_reason: 'tool_calls', message: { role: 'assistant', content: null } });
    expect(search).toEqual({ id: expect.stringMatching(/^call_\d+$/), name: 'search', arguments: '{"q":"x"}' });
    expect(fetchCall).toEqual({ id: expect.stringMatching(/^call_\d+$/), name: 'fetch', arguments: '{"url": broken' });
    expect(second.message.content).toBe('done');
    expect(fake.requests[1].body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: search.id, type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
          { id: fetchCall.id, type: 'function', function: { name: 'fetch', arguments: '{"url": broken' } },
        ],
      },
      { role: 'tool', content: '{"r":1}', tool_call_id: search.id },
      { role: 'tool', content: '{"error":"bad arguments"}', tool_call_id: fetchCall.id },
    ]);
  });

  it('refuses a tool message without tool_call_id before sending anything', async () => {
    const error = await failureOf(sut.complete(request({ messages: [...messages, { role: 'tool', content: 'x' }] })));

    expect(error).toMatchObject({ kind: 'bad_request', retryable: false });
    expect(fake.requests).toHaveLength(0);
  });

  it('classifies a 429 as retryable with its retry-after, and sends it once', async () => {
    fake.script(reply.error(429, { retryAfterSeconds: 3, message: 'slow down' }));

    const error = await failureOf(sut.complete(request()));

    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 3000 });
    expect(error.message).toContain('slow down');
    expect(fake.requests).toHaveLength(1);
  });

  it('prefers retry-after-ms to retry-after', async () => {
    fake.script(reply.error(503, { retryAfterSeconds: 3, retryAfterMs: 250 }));

    expect(await failureOf(sut.complete(request()))).toMatchObject({ kind: 'server', retryable: true, status: 503, retryAfterMs: 250 });
  });

  it('classifies a 500 as retryable and does not retry it by itself: exactly one request', async () => {
    fake.script(reply.error(500));

    const error = await failureOf(sut.complete(request()));

    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 500 });
    expect(error.retryAfterMs).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [408, 'timeout'],
    [409, 'conflict'],
  ])('classifies %i as retryable %s', async (status, kind) => {
    fake.script(reply.error(status));

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
    fake.script(reply.error(status, { message: 'model gpt-9 does not exist', retryAfterSeconds: 5 }));

    const error = await failureOf(sut.complete(request()));

    expect(error).toMatchObject({ kind, retryable: false, status });
    expect(error.message).toBe(`model provider answered ${status}: model gpt-9 does not exist`);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('treats a 200 that is not JSON as a retryable malformed response', async () => {
    fake.script(reply.malformed());

    expect(await failureOf(sut.complete(request()))).toMatchObject({ kind: 'malformed_response', retryable: true });
  });

  it('treats a 200 JSON answer without a choice as a retryable malformed response', async () => {
    fake.script({ status: 200, body: { id: 'x', object: 'chat.completion', model: 'm', choices: [] } });

    expect(await failureOf(sut.complete(request()))).toMatchObject({
      kind: 'malformed_response',
      retryable: true,
      message: expect.stringContaining('no choice'),
    });
  });

  it('stops promptly when aborted during a slow answer, and the provider sees the disconnect', async () => {
    fake.script(reply.text('late', { delayMs: 30_000 }));
    const controller = new AbortController();
    const pending = failureOf(sut.complete(request(), { signal: controller.signal }));
    await fake.waitForRequests(1);

    const started = Date.now();
    controller.abort();

    expect(await pending).toMatchObject({ kind: 'aborted', retryable: false });
    expect(Date.now() - started).toBeLessThan(1000);
    await fake.waitUntil(() => fake.requests[0].aborted, 2000);
  });

  it('does not send a call whose signal is already aborted', async () => {
    const error = await failureOf(sut.complete(request(), { signal: AbortSignal.abort() }));

    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(fake.requests).toHaveLength(0);
  });

  it('classifies its own timeout as retryable, once', async () => {
    const impatient = new OpenAiModelClient({ baseUrl: fake.baseUrl, apiKey: 'k', timeoutMs: 200 });
    fake.script(reply.text('late', { delayMs: 30_000 }));

    expect(await failureOf(impatient.complete(request()))).toMatchObject({ kind: 'timeout', retryable: true });
    await fake.waitUntil(() => fake.requests[0].aborted, 2000);
    expect(fake.requests).toHaveLength(1);
  });

  it('classifies an unreachable provider as a retryable network error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const nowhere = new OpenAiModelClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', timeoutMs: 2000 });

    const error = await failureOf(nowhere.complete(request()));

    expect(error).toMatchObject({ kind: 'network', retryable: true, message: expect.stringContaining('ECONNREFUSED') });
    expect(error.status).toBeUndefined();
  });
});
