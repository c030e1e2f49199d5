// The egress policy as a user meets it: the worker fetches nothing on loopback, private or metadata
// addresses for a user (http_request, a registered tool, a notification, a redirect), refusing before any
// connection; saving such a URL is a coded 422; EGRESS_ALLOW lets an operator name what is reachable.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { ToolRepository } from '../libs/persistence/src';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { startStack, useStack, type RunBody, type Stack } from './support/stack';

/** A listener on loopback that counts the connections it gets: a refusal must leave it at zero. */
class Canary {
  connections = 0;
  private constructor(private readonly server: Server) {}

  static async start(host = '127.0.0.1'): Promise<Canary> {
    // It redirects to 127.0.0.1 (where the first canary listens), except on that path.
    const canary: Canary = new Canary(
      createServer((request, response) =>
        request.url === '/again'
          ? response.writeHead(200).end('ok')
          : response.writeHead(302, { location: `http://127.0.0.1:${canary.port}/again` }).end(),
      ),
    );
    canary.server.on('connection', (socket: Socket) => {
      canary.connections++;
      socket.unref();
    });
    await new Promise<void>((resolve) => canary.server.listen(0, host, resolve));
    return canary;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const deniedUrls = (port: number) => [
  `http://127.0.0.1:${port}/`,
  'http://169.254.169.254/latest/meta-data/',
  `http://[::1]:${port}/`,
  `http://[::ffff:127.0.0.1]:${port}/`,
  `http://localhost:${port}/`,
];

describe('Egress policy', () => {
  let stack: Stack;
  let canary: Canary;

  useStack((started) => (stack = started), { egressAllow: [] });
  beforeAll(async () => {
    canary = await Canary.start();
  });
  afterAll(() => canary?.close());
  beforeEach(() => {
    canary.connections = 0;
  });

  it('refuses to save a tool endpoint or a notify_url that can only reach a denied address', async () => {
    for (const url of deniedUrls(canary.port)) {
      const tool = await stack.user.post('/tools', {
        name: `t_${randomUUID().slice(0, 6)}`,
        description: 'd',
        parameters: { type: 'object' },
        endpoint_url: url,
      });
      expect([url, tool.status, tool.body.code, tool.body.details?.field]).toEqual([url, 422, 'EGRESS_DENIED', 'endpoint_url']);
    }
    const workflow = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep()],
      notify_url: `http://localhost:${canary.port}/hook`,
    });
    expect(workflow).toMatchObject({ status: 422, body: { code: 'EGRESS_DENIED', details: { field: 'notify_url' } } });
    expect(canary.connections).toBe(0);
  });

  it("answers an agent's http_request to a denied address with EGRESS_DENIED, before connecting", async () => {
    const urls = deniedUrls(canary.port);
    stack.model.script(
      reply.toolCalls(urls.map((url) => ({ name: 'http_request', arguments: { url } }))),
      reply.text('could not reach them'),
    );
    const run = await stack.runSteps([agentStep({ tools: ['http_request'] })]);

    expect([run.status, run.error_message]).toEqual(['completed', null]);
    const calls: RunBody[] = run.steps[0].tool_calls;
    expect(calls.map((call) => [call.status, /EGRESS_DENIED/.test(call.error_message)])).toEqual(urls.map(() => ['failed', true]));
    const answers = stack.model.requests[1].body.messages
      .filter((message: RunBody) => message.role === 'tool')
      .map((message: RunBody) => message.content);
    expect(answers.every((content: string) => content.includes('EGRESS_DENIED'))).toBe(true);
    expect(canary.connections).toBe(0);
  });

  it('refuses a registered tool saved before the policy refused its address, and a notification likewise', async () => {
    // As if EGRESS_ALLOW had named loopback when they were saved.
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await stack.api.app.get(ToolRepository).create({
      user_id: stack.user.userId,
      name,
      description: 'd',
      parameters: { type: 'object' },
      transport: 'http',
      endpoint_url: `http://localhost:${canary.port}/tool`,
      timeout_ms: 5000,
      side_effect_free: false,
    });
    const workflow = await stack.createWorkflow([agentStep({ tools: [name] })], { notify_on_complete: true });
    await stack.api.app
      .get(DataSource)
      .query('UPDATE workflows SET notify_url = ? WHERE uuid = ?', [`http://127.0.0.1:${canary.port}/hook`, workflow.uuid]);
    stack.model.script(reply.toolCalls([{ name, arguments: {} }]), reply.text('done'));

    const run = await stack.waitForRun(
      (await stack.startRun(workflow.uuid)).uuid,
      (body) => body.notification?.status === 'failed',
      30_000,
    );

    expect(run.steps[0].tool_calls).toEqual([
      expect.objectContaining({ status: 'failed', error_message: expect.stringContaining('EGRESS_DENIED') }),
    ]);
    expect(run.notification).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringContaining('EGRESS_DENIED') });
    expect(canary.connections).toBe(0);
  });

  it('reaches what EGRESS_ALLOW names, and refuses a redirect from there to a denied address', async () => {
    const redirecting = await Canary.start('127.0.0.3');
    const allowed = await startStack({ egressAllow: ['127.0.0.3/32'] });
    try {
      allowed.model.script(
        reply.toolCalls([
          { name: 'http_request', arguments: { url: `http://127.0.0.3:${redirecting.port}/again` } },
          // Answers 302 to 127.0.0.1, where the first canary listens.
          { name: 'http_request', arguments: { url: `http://127.0.0.3:${redirecting.port}/` } },
        ]),
        reply.text('done'),
      );
      const run = await allowed.runSteps([agentStep({ tools: ['http_request'] })]);
      const [reached, redirected]: RunBody[] = run.steps[0].tool_calls;
      expect(reached).toMatchObject({ status: 'completed', output: { status: 200, body: 'ok' } });
      expect(redirected).toMatchObject({
        status: 'failed',
        error_message: expect.stringContaining('EGRESS_DENIED: 127.0.0.1 is in a loopback range'),
      });
      expect(redirecting.connections).toBeGreaterThan(0);
      expect(canary.connections).toBe(0);
    } finally {
      await allowed.close();
      await redirecting.close();
    }
  });
});
