// What the worker reads from a user's tools and sends them, as a hostile tool meets it (#26): an answer
// streamed far past TOOL_ANSWER_MAX_BYTES ends the call with TOOL_ANSWER_TOO_LARGE after a few MB (over
// HTTP and from an MCP server) while another tenant's run goes on; a redirect to another origin arrives
// without the credentials (Authorization, an API key header, a notification's signature); a failing
// tool's query string and the key its error echoes stay out of every failure message and of Temporal.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from './support/api';
import { agentStep, llmStep } from './support/factories';
import { HostileServer } from './support/hostile-server';
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import type { RunView } from './support/views';

const MiB = 1024 * 1024;
const HUGE = 200 * MiB;

const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;
const answered = (request: RecordedRequest) => request.body.messages.some((message) => message.role === 'tool');

describe('What the worker reads from tools and sends them', () => {
  let stack: Stack;
  let hostile: HostileServer;
  /** Another origin: the same address, another port. */
  let elsewhere: HostileServer;

  beforeAll(async () => {
    [hostile, elsewhere] = await Promise.all([HostileServer.start(), HostileServer.start()]);
  });
  useStack((started) => (stack = started));
  afterAll(() => Promise.all([hostile?.close(), elsewhere?.close()]));

  async function registerTool(path: string): Promise<string> {
    const name = `hostile_${randomUUID().slice(0, 8)}`;
    const created = await stack.user.post('/tools', {
      name,
      description: 'a hostile tool',
      parameters: { type: 'object' },
      endpoint_url: hostile.url(path),
      timeout_ms: 60_000,
    });
    expect(created.status).toBe(201);
    return name;
  }

  /** A workflow of these steps run once by `user` (stack.runSteps runs as stack.user). */
  async function runAs(user: ApiClient, steps: Record<string, unknown>[]): Promise<RunView> {
    const workflow = await user.post('/workflows', { name: `wf-${randomUUID().slice(0, 8)}`, steps });
    const started = await user.post(`/workflows/${workflow.body.uuid}/runs`, { trigger_output: { text: 'hello' } });
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const { body } = await user.get(`/runs/${started.body.uuid}`);
      if (body.status !== 'running') return body as RunView;
    }
    throw new Error(`run ${started.body.uuid} did not end`);
  }

  it('ends tool calls whose answers stream far past the cap with TOOL_ANSWER_TOO_LARGE, a few MB of 200 read, while another tenant runs', async () => {
    const tool = await registerTool(`/huge?json=1&bytes=${HUGE}`);
    const server = await stack.user.post('/mcp-servers', {
      name: `hostile_${randomUUID().slice(0, 6)}`,
      transport: 'streamable_http',
      url: hostile.url('/mcp'),
      timeout_ms: 60_000,
    });
    expect(server.status).toBe(201);
    const tenantA = await stack.api.newUser();
    stack.model.respondWith((request) => {
      if (systemPromptOf(request).includes('tenant A')) return reply.text('A is done');
      if (answered(request)) return reply.text('both answers were too large');
      return reply.toolCalls([
        { name: tool, arguments: {} },
        { name: `${server.body.name}__dump`, arguments: { bytes: HUGE } },
      ]);
    });

    const [b, a] = await Promise.all([
      stack.runSteps([agentStep({ system_prompt: 'Read both dumps', tools: [tool, `${server.body.name}.dump`] })]),
      runAs(tenantA, [llmStep({ system_prompt: 'Summarise for tenant A <<trigger_output>>' })]),
    ]);

    expect([a.status, a.steps[0].output?.raw_data]).toEqual(['completed', 'A is done']);
    expect(b.status).toBe('completed');
    const calls: RunBody[] = b.steps[0].tool_calls;
    expect(calls.map((call) => [call.tool_name, call.status, call.error_message]).sort()).toEqual(
      [
        [tool, 'failed', expect.stringContaining(`tool ${tool}: TOOL_ANSWER_TOO_LARGE: the answer passed ${MiB} bytes`)],
        [`${server.body.name}.dump`, 'failed', expect.stringContaining(`MCP server ${server.body.name}, tool dump: TOOL_ANSWER_TOO_LARGE`)],
      ].sort(),
    );
    // Each call once: the failure is final, an answer the model read, not a retry.
    expect(calls.every((call) => call.attempt === 1)).toBe(true);
    const [http, mcp] = await Promise.all([hostile.ended('/huge'), hostile.ended('/mcp')]);
    expect([http.whole, mcp.whole]).toEqual([false, false]);
    // What socket buffers took before the connections closed.
    expect(http.written + mcp.written).toBeLessThan(32 * MiB);
  });

  it('sends a redirect to another origin none of the credentials, and keeps them within the origin', async () => {
    const away = hostile.url(`/redirect?to=${encodeURIComponent(elsewhere.url('/landing'))}`);
    const within = hostile.url(`/redirect?to=${encodeURIComponent(hostile.url('/landing'))}`);
    const headers = { authorization: 'Bearer e2e-token-0123456789', 'x-api-key': 'e2e-key-0123456789' };
    stack.model.script(
      reply.toolCalls([
        { name: 'http_request', arguments: { url: away, method: 'POST', headers, body: { q: 1 } } },
        { name: 'http_request', arguments: { url: within, headers } },
      ]),
      reply.text('done'),
    );
    const before = { elsewhere: elsewhere.seen('/landing').length, hostile: hostile.seen('/landing').length };

    const run = await stack.runSteps([agentStep({ tools: ['http_request'] })]);

    expect(run.status).toBe('completed');
    expect(run.steps[0].tool_calls.map((call: RunBody) => [call.status, call.output?.status])).toEqual([
      ['completed', 200],
      ['completed', 200],
    ]);
    const [landedElsewhere] = elsewhere.seen('/landing').slice(before.elsewhere);
    expect([landedElsewhere.method, landedElsewhere.headers.authorization, landedElsewhere.headers['x-api-key']]).toEqual([
      'POST',
      undefined,
      undefined,
    ]);
    const [landedWithin] = hostile.seen('/landing').slice(before.hostile);
    expect([landedWithin.headers.authorization, landedWithin.headers['x-api-key']]).toEqual([headers.authorization, headers['x-api-key']]);
  });

  it('sends a notification redirected to another origin without its signature', async () => {
    const notify_url = hostile.url(`/redirect?to=${encodeURIComponent(elsewhere.url('/hook'))}`);
    const workflow = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 8)}`,
      notify_url,
      notify_on_complete: true,
      steps: [llmStep()],
    });
    expect(workflow.status).toBe(201);
    stack.model.script(reply.text('done'));

    const run = await stack.waitForRun(
      (await stack.startRun(workflow.body.uuid)).uuid,
      (body) => body.notification !== null && body.notification !== undefined,
      30_000,
    );

    expect(run.notification).toMatchObject({ status: 'delivered' });
    const delivered = elsewhere.seen('/hook').at(-1)!;
    expect(delivered.method).toBe('POST');
    expect(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => delivered.headers[name])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const first = hostile.seen('/redirect').find((request) => request.headers['webhook-signature'] !== undefined);
    expect(first?.headers['webhook-signature']).toMatch(/^v1,/); // signed for the origin it was sent to
  });

  it("keeps a failing tool's query string and the key its error echoes out of every failure message and of Temporal", async () => {
    const secret = 'qs-secret-0123456789abcdef';
    const tool = await registerTool(`/fail?api_key=${secret}&region=eu`);
    stack.model.script(reply.toolCalls([{ name: tool, arguments: {} }]));

    const run = await stack.runSteps([agentStep({ tools: [tool], retry_policy: { max_attempts: 1 } })]);

    expect(run.status).toBe('failed');
    const messages = [run.error_message, run.steps[0].error_message, ...run.steps[0].tool_calls.map((call: RunBody) => call.error_message)];
    expect(messages).toEqual([
      expect.stringContaining(`tool ${tool} answered 500`),
      expect.stringContaining(`tool ${tool} answered 500`),
      expect.stringContaining(`tool ${tool} answered 500`),
    ]);
    expect(messages.filter((message) => message.includes(secret) || message.includes('region=eu'))).toEqual([]);
    const history = JSON.stringify(await (await stack.temporal()).workflow.getHandle(`run-${run.uuid}`).fetchHistory());
    expect(history).toContain('answered 500');
    expect(history).not.toContain(secret);
  });
});
