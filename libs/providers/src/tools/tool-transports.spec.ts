// The tool transports against a real local HTTP server: what reaches the tool, what comes back, and how
// each failure is classified.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostileServer } from '../../../../test/support/hostile-server';
import { ToolResponse, ToolServer, toolScript } from '../../../../test/support/tool-server';
import { BuiltinToolTransport } from './builtin-tool-transport';
import { MAX_TOOL_BODY_BYTES } from './http-fetch';
import { HTTP_REQUEST_TOOL, httpRequestTool, type HttpRequestArgs } from './http-request.tool';
import { HttpToolTransport } from './http-tool-transport';
import { ToolCallError, type ToolDescriptor } from './tool-transport';
import { EgressPolicy } from '../net/egress-fetch';

/** The tests' tool server is on loopback: allowed here, as EGRESS_ALLOW would. */
const fetch = new EgressPolicy(['127.0.0.1/32']).fetch;

async function failureOf(promise: Promise<unknown>): Promise<ToolCallError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (error instanceof ToolCallError) return error;
  throw new Error(`expected a ToolCallError, got ${error === null ? 'an answer' : String(error)}`);
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/tools/gone`;
}

let tools: ToolServer;
let hostile: HostileServer;

beforeAll(async () => {
  hostile = await HostileServer.start();
  tools = await ToolServer.start({
    handlers: {
      search_web: (args) => ({ found: args }),
      plain: () => new ToolResponse(200, 'just words', { 'content-type': 'text/plain' }),
      big: () => new ToolResponse(200, 'é'.repeat(MAX_TOOL_BODY_BYTES), { 'content-type': 'text/plain; charset=utf-8' }),
      echo: (args, call) =>
        ToolResponse.json(
          { args, method: call.method, content_type: call.headers['content-type'] ?? null, token: call.headers['x-token'] ?? null },
          200,
          { etag: '"v1"', 'set-cookie': 'secret=1' },
        ),
    },
  });
});
afterEach(() => tools.reset());
afterAll(() => Promise.all([tools.close(), hostile.close()]));

describe(HttpToolTransport.name, () => {
  const sut = new HttpToolTransport(fetch);
  const tool = (name: string, overrides: Partial<ToolDescriptor> = {}): ToolDescriptor => ({
    name,
    description: 'd',
    parameters: { type: 'object' },
    transport: 'http',
    endpoint_url: tools.url(name),
    timeout_ms: 5000,
    ...overrides,
  });

  it('POSTs the arguments as JSON and answers with the parsed output', async () => {
    const output = await sut.call(tool('search_web'), { product: 'Galaxy S24' }, {});

    expect(output).toEqual({ found: { product: 'Galaxy S24' } });
    expect(tools.calls).toEqual([
      expect.objectContaining({ name: 'search_web', method: 'POST', args: { product: 'Galaxy S24' }, status: 200, completed: true }),
    ]);
    expect(tools.calls[0].headers['content-type']).toBe('application/json');
    expect(tools.counts()).toEqual({ search_web: 1 });
  });

  it('answers with the text when the tool does not answer JSON', async () => {
    expect(await sut.call(tool('plain'), {}, {})).toBe('just words');
  });

  it.each([
    [503, 'server'],
    [500, 'server'],
    [429, 'rate_limited'],
    [408, 'timeout'],
  ])('makes a %i retryable (%s)', async (status, kind) => {
    tools.script('search_web', toolScript.fail(status, 'busy'));

    const error = await failureOf(sut.call(tool('search_web'), { a: 1 }, {}));

    expect(error).toMatchObject({ retryable: true, kind, status });
    expect(error.message).toBe(`tool search_web answered ${status}: {"error":"busy"}`);
    expect(tools.countOf('search_web', { a: 1 })).toBe(1);
  });

  it.each([400, 401, 404, 422])('makes a %i final, with what the tool said', async (status) => {
    tools.script('search_web', toolScript.fail(status, 'no such product'));

    const error = await failureOf(sut.call(tool('search_web'), {}, {}));

    expect(error).toMatchObject({ retryable: false, kind: 'client_error', status, message: expect.stringContaining('no such product') });
  });

  it('gives up at its timeout, retryably, and the tool sees the disconnect', async () => {
    tools.script('search_web', toolScript.delay(30_000));

    const error = await failureOf(sut.call(tool('search_web', { timeout_ms: 200 }), {}, {}));

    expect(error).toMatchObject({ retryable: true, kind: 'timeout', message: 'tool search_web: no answer within 200 ms' });
    await tools.waitUntil(() => tools.calls[0]?.aborted, 2000);
  });

  it('stops promptly when aborted, and the abort is final', async () => {
    tools.script('search_web', toolScript.delay(30_000));
    const controller = new AbortController();
    const pending = failureOf(sut.call(tool('search_web'), {}, { signal: controller.signal }));
    await tools.waitForCalls(1);

    const started = Date.now();
    controller.abort();

    expect(await pending).toMatchObject({ retryable: false, kind: 'aborted' });
    expect(Date.now() - started).toBeLessThan(1000);
    await tools.waitUntil(() => tools.calls[0].aborted, 2000);
  });

  it('makes an unreachable endpoint a retryable network failure', async () => {
    const error = await failureOf(sut.call(tool('gone', { endpoint_url: await closedPortUrl() }), {}, {}));

    expect(error).toMatchObject({ retryable: true, kind: 'network', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('refuses a tool without an http(s) endpoint', async () => {
    expect(await failureOf(sut.call(tool('x', { endpoint_url: null }), {}, {}))).toMatchObject({ retryable: false, kind: 'invalid' });
    expect(await failureOf(sut.call(tool('x', { endpoint_url: 'file:///etc/passwd' }), {}, {}))).toMatchObject({
      retryable: false,
      kind: 'invalid',
    });
  });

  it('takes an answer up to its cap whole', async () => {
    const output = (await sut.call(tool('big'), {}, {})) as string;

    expect(Buffer.byteLength(output)).toBe(2 * MAX_TOOL_BODY_BYTES); // 2-byte characters, under the 1 MiB default
  });

  it('fails an answer that says it is over the cap for good, before reading it', async () => {
    const capped = new HttpToolTransport(fetch, { answerMaxBytes: MAX_TOOL_BODY_BYTES });

    const error = await failureOf(capped.call(tool('big'), {}, {}));

    expect(error).toMatchObject({
      retryable: false,
      kind: 'too_large',
      message: `tool big: TOOL_ANSWER_TOO_LARGE: the answer passed ${MAX_TOOL_BODY_BYTES} bytes (TOOL_ANSWER_MAX_BYTES) and was not read further`,
    });
  });

  it('stops reading a streamed answer at the cap: the rest is never downloaded', async () => {
    const capped = new HttpToolTransport(fetch, { answerMaxBytes: 1024 * 1024 });
    const total = 200 * 1024 * 1024;

    const error = await failureOf(capped.call(tool('huge', { endpoint_url: hostile.url(`/huge?json=1&bytes=${total}`) }), {}, {}));

    expect(error).toMatchObject({ retryable: false, kind: 'too_large' });
    const { written, whole } = await hostile.ended('/huge');
    expect(whole).toBe(false);
    // What the socket buffers took before the connection closed: a few MB of the 200.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('quotes an error body shortened, on one line, scrubbed of what looks like a secret', async () => {
    const body = `{"error":"bad credentials","api_key":"k-0123456789"}\n${'detail '.repeat(500)}Bearer abcdef0123456789`;
    tools.script('search_web', toolScript.respond(new ToolResponse(401, body, { 'content-type': 'text/plain' })));

    const error = await failureOf(sut.call(tool('search_web'), {}, {}));

    expect(error.message).toMatch(/^tool search_web answered 401: \{"error":"bad credentials","api_key":"\[redacted\]"\} detail detail/);
    expect(error.message.length).toBeLessThan(600);
    expect(error.message).not.toMatch(/k-0123456789|abcdef0123456789|\n/);
  });
});

describe(httpRequestTool.name, () => {
  it('sends a JSON body with its headers and answers status, chosen headers and the parsed body', async () => {
    const result = await httpRequestTool(
      { url: tools.url('echo'), method: 'POST', headers: { 'x-token': 't1' }, body: { q: 'stepwise' } },
      { fetch },
    );

    expect(result).toEqual({
      status: 200,
      content_type: 'application/json',
      headers: { 'content-type': 'application/json', etag: '"v1"' }, // no set-cookie
      body: { args: { q: 'stepwise' }, method: 'POST', content_type: 'application/json', token: 't1' },
      truncated: false,
    });
    expect(tools.countOf('echo', { q: 'stepwise' })).toBe(1);
  });

  it('sends a string body as it is, and defaults to GET without a body', async () => {
    const posted = await httpRequestTool(
      { url: tools.url('echo'), method: 'put' as never, body: 'raw text', headers: { 'content-type': 'text/plain' } },
      { fetch },
    );
    const got = await httpRequestTool({ url: tools.url('echo'), body: { ignored: true } }, { fetch });

    expect(posted.body).toMatchObject({ args: 'raw text', method: 'PUT', content_type: 'text/plain' });
    expect(got.body).toMatchObject({ args: null, method: 'GET' });
  });

  it('hands a non-2xx answer back as a result, not a failure', async () => {
    tools.script('echo', toolScript.fail(404, 'not here'));

    expect(await httpRequestTool({ url: tools.url('echo') }, { fetch })).toMatchObject({
      status: 404,
      body: { error: 'not here' },
      truncated: false,
    });
  });

  it('keeps a text answer as text, even when it looks like JSON', async () => {
    tools.script('echo', toolScript.respond(new ToolResponse(200, '123', { 'content-type': 'text/plain' })));

    expect(await httpRequestTool({ url: tools.url('echo') }, { fetch })).toMatchObject({ body: '123', content_type: 'text/plain' });
  });

  it('cuts a large answer at 256 KiB and says so', async () => {
    const result = await httpRequestTool({ url: tools.url('big') }, { fetch });

    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.body as string)).toBe(MAX_TOOL_BODY_BYTES);
  });

  it.each<[string, unknown]>([
    ['no url', {}],
    ['a relative url', { url: '/tools/echo' }],
    ['another scheme', { url: 'file:///etc/passwd' }],
    ['an unknown method', { url: 'http://127.0.0.1/', method: 'TRACE' }],
    ['headers that are not strings', { url: 'http://127.0.0.1/', headers: { n: 1 } }],
  ])('refuses %s with a final failure', async (_case, args) => {
    expect(await failureOf(httpRequestTool(args as HttpRequestArgs, { fetch }))).toMatchObject({ retryable: false, kind: 'invalid' });
    expect(tools.calls).toHaveLength(0);
  });

  it('names the URL without its query string when the call fails', async () => {
    const url = `${await closedPortUrl()}?token=tk-123456&q=x`;

    const error = await failureOf(httpRequestTool({ url }, { fetch }));

    expect(error).toMatchObject({
      kind: 'network',
      message: expect.stringContaining(`http_request GET ${url.split('?')[0]}?[redacted]: unreachable`),
    });
    expect(error.message).not.toContain('tk-123456');
  });

  it('times out retryably', async () => {
    tools.script('echo', toolScript.delay(30_000));

    expect(await failureOf(httpRequestTool({ url: tools.url('echo') }, { timeoutMs: 200, fetch }))).toMatchObject({
      retryable: true,
      kind: 'timeout',
    });
  });
});

describe(BuiltinToolTransport.name, () => {
  it('runs http_request and the tools it is given, by name, with the descriptor timeout', async () => {
    const seen: unknown[] = [];
    const sut = new BuiltinToolTransport(fetch, {
      get_output: async (args, options) => (seen.push([args, options.timeoutMs]), { data: 1 }),
    });
    const getOutput: ToolDescriptor = { name: 'get_output', description: 'd', parameters: {}, transport: 'builtin', timeout_ms: 1234 };

    expect(await sut.call(HTTP_REQUEST_TOOL, { url: tools.url('search_web'), method: 'POST', body: { q: 1 } }, {})).toMatchObject({
      status: 200,
      body: { found: { q: 1 } },
    });
    expect(await sut.call(getOutput, { output_id: 'o1' }, {})).toEqual({ data: 1 });
    expect(seen).toEqual([[{ output_id: 'o1' }, 1234]]);
  });

  it('refuses an unknown built-in', async () => {
    const sut = new BuiltinToolTransport(fetch);

    expect(await failureOf(sut.call({ ...HTTP_REQUEST_TOOL, name: 'toString' }, {}, {}))).toMatchObject({
      retryable: false,
      kind: 'invalid',
    });
  });
});

describe('HTTP_REQUEST_TOOL', () => {
  it('is the built-in the domain lists, on the builtin transport', () => {
    expect(HTTP_REQUEST_TOOL).toMatchObject({ name: 'http_request', transport: 'builtin', parameters: { required: ['url'] } });
  });
});
