import { ModelFake, reply } from '../../../../test/support/model-fake';
import { ModelCallError } from './model-call-error';
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

  const request = { model: 'm', messages: [{ role: 'system' as const, content: 'be brief' }, { role: 'user' as const, content: 'hi' }] };

  async function failureOf(promise: Promise<unknown>): Promise<ModelCallError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof ModelCallError) return error;
      throw error;
    }
    throw new Error('expected a ModelCallError');
  }

  it('sends the request as the provider expects and maps the answer and usage', async () => {
    fake.script(reply.text('hello', { usage: { prompt_tokens: 12, completion_tokens: 3 } }));
    const response = await sut.complete({
      ...request,
      tools: [{ name: 'search', description: 'find', parameters: { type: 'object' } }],
      response_format: { type: 'json_schema', name: 'out', schema: { type: 'object' } },
    });
    expect(response).toMatchObject({ message: { role: 'assistant', content: 'hello' }, usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    const sent = fake.requests[0];
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(sent.body).toMatchObject({
      model: 'm',
      messages: request.messages,
      tools: [{ type: 'function', function: { name: 'search', description: 'find', parameters: { type: 'object' } } }],
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } },
    });
  });

  it('round-trips tool calls', async () => {
    fake.script(reply.toolCalls([{ name: 'search', arguments: { q: 'x' } }]), reply.text('done'));
    const first = await sut.complete(request);
    const call = first.message.tool_calls![0];
    expect(call).toMatchObject({ name: 'search', arguments: '{"q":"x"}' });
    await sut.complete({ ...request, messages: [...request.messages, first.message, { role: 'tool', content: '{"r":1}', tool_call_id: call.id }] });
    expect(fake.requests[1].body.messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      { role: 'tool', content: '{"r":1}', tool_call_id: call.id },
    ]);
  });

  it('classifies a 429 as retryable with its retry-after, and does not retry by itself', async () => {
    fake.script(reply.error(429, { retryAfterSeconds: 3, message: 'slow down' }));
    const error = await failureOf(sut.complete(request));
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 3000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('classifies a 500 as retryable and sends it once', async () => {
    fake.script(reply.error(500));
    expect(await failureOf(sut.complete(request))).toMatchObject({ kind: 'server', retryable: true });
    expect(fake.requests).toHaveLength(1);
  });

  it.each([[400, 'bad_request'], [401, 'auth'], [404, 'not_found'], [422, 'unprocessable']])('classifies %i as final', async (status, kind) => {
    fake.script(reply.error(status, { message: 'model does not exist' }));
    const error = await failureOf(sut.complete(request));
    expect(error).toMatchObject({ kind, retryable: false, status });
    expect(error.message).toContain('model does not exist');
  });

  it('treats a malformed body as retryable', async () => {
    fake.script(reply.malformed());
    expect(await failureOf(sut.complete(request))).toMatchObject({ kind: 'malformed_response', retryable: true });
  });

  it('stops promptly when aborted, and the provider sees the disconnect', async () => {
    fake.script(reply.text('late', { delayMs: 10_000 }));
    const controller = new AbortController();
    const pending = sut.complete(request, { signal: controller.signal });
    await fake.waitForRequests(1);
    const started = Date.now();
    controller.abort();
    expect(await failureOf(pending)).toMatchObject({ kind: 'aborted', retryable: false });
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.requests[0].aborted).toBe(true);
  });
});
