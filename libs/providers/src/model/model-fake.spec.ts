// The model fake is test support, but every model test leans on it failing loudly: check that it does.
import { ModelFake, reply } from '../../../../test/support/model-fake';

describe(ModelFake.name, () => {
  let sut: ModelFake;

  beforeAll(async () => {
    sut = await ModelFake.start();
  });
  afterEach(() => sut.reset());
  afterAll(() => sut.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- completions read loosely
  const json = async (response: Response): Promise<any> => response.json();
  const complete = (body: unknown = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }) =>
    fetch(`${sut.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('serves the script in order, echoes the requested model and records each request', async () => {
    sut.script(reply.text('one'), reply.toolCalls([{ name: 'search', arguments: { q: 'x' } }]));

    const first = await json(await complete());
    const second = await json(await complete());

    expect(first).toMatchObject({
      model: 'm',
      choices: [{ message: { role: 'assistant', content: 'one' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(second.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [{ id: expect.stringMatching(/^call_\d+$/), type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }],
      },
      finish_reason: 'tool_calls',
    });
    expect(sut.requests.map((request) => [request.path, request.status, request.aborted])).toEqual([
      ['/v1/chat/completions', 200, false],
      ['/v1/chat/completions', 200, false],
    ]);
    expect(() => sut.assertDone()).not.toThrow();
  });

  it('answers 500 when the script is exhausted and makes assertDone throw', async () => {
    const response = await complete();

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { message: 'model fake: script exhausted' } });
    expect(() => sut.assertDone()).toThrow(/script exhausted/);
  });

  it('makes assertDone throw while scripted answers remain', () => {
    sut.script(reply.text('never asked for'));

    expect(() => sut.assertDone()).toThrow(/1 scripted response\(s\) were never requested/);
  });

  it('refuses unknown routes as unexpected, and lists models', async () => {
    expect((await fetch(`${sut.baseUrl}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(400);
    expect(await (await fetch(`${sut.baseUrl}/models`)).json()).toMatchObject({ data: [{ id: 'fake-model' }] });

    expect(sut.unexpected.map((entry) => entry.reason)).toEqual([expect.stringContaining('no such route')]);
  });

  it('streams a scripted answer as chat-completion chunks when asked: text, tool-call deltas, finish, usage, [DONE]', async () => {
    sut.script(
      reply.text('hello', { stream: { pieceChars: 2 } }),
      reply.toolCalls([{ name: 'f', arguments: { a: 1 }, id: 'c1' }], { stream: { pieceChars: 3 } }),
    );
    const streamed = async () =>
      (await (await complete({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } })).text())
        .split('\n\n')
        .filter(Boolean)
        .map((line) => line.replace(/^data: /, ''));

    const text = await streamed();
    const tools = await streamed();

    expect(text.slice(1, 4).map((data) => JSON.parse(data).choices[0].delta.content)).toEqual(['he', 'll', 'o']);
    expect(JSON.parse(text[4]).choices[0].finish_reason).toBe('stop');
    expect(JSON.parse(text[5])).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    expect(text[6]).toBe('[DONE]');
    expect(JSON.parse(tools[1]).choices[0].delta.tool_calls).toEqual([
      { index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } },
    ]);
    expect(
      tools
        .slice(2, 5)
        .map((data) => JSON.parse(data).choices[0].delta.tool_calls[0].function.arguments)
        .join(''),
    ).toBe('{"a":1}');
  });

  it('uses the fallback after the script, and autoReply ahead of it without delays', async () => {
    sut.script(reply.text('scripted')).respondWith(() => reply.text('fallback'));
    const contents = async () => (await json(await complete())).choices[0].message.content;

    expect([await contents(), await contents()]).toEqual(['scripted', 'fallback']);

    sut.reset();
    sut.autoReply((request) => reply.text(`auto ${request.body.model}`, { delayMs: 60_000 }));
    expect(await contents()).toBe('auto m');
  });

  it('sends retry headers and malformed bodies as scripted', async () => {
    sut.script(reply.error(429, { retryAfterSeconds: 2, retryAfterMs: 1500 }), reply.malformed());

    const limited = await complete();
    const malformed = await complete();

    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('retry-after-ms')]).toEqual([429, '2', '1500']);
    expect([malformed.status, await malformed.text()]).toEqual([200, 'this is not json']);
  });

  it('cuts a delay short when the client goes away and records the abort', async () => {
    sut.script(reply.text('late', { delayMs: 60_000 }));
    const controller = new AbortController();
    const aborted = fetch(`${sut.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [] }),
      signal: controller.signal,
    }).catch((error: Error) => error.name);
    await sut.waitForRequests(1);

    controller.abort();

    expect(await aborted).toBe('AbortError');
    await sut.waitUntil(() => sut.requests[0].aborted, 2000);
    expect(sut.requests[0].status).toBeNull();
  });
});
