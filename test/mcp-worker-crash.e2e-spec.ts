// The built worker (dist/apps/worker) killed with SIGKILL while an MCP tool call is in flight, an ordinary
// activity (the server's timeout is above LOCAL_TOOL_CALL_MAX_TIMEOUT_MS): a new worker picks the run up
// and sends only that call again, never one that completed.
import { DataSource } from 'typeorm';
import { startApi, testConfig, type ApiClient, type TestApi } from './support/api';
import { agentStep } from './support/factories';
import { McpTestServer } from './support/mcp-test-server';
import { ModelFake, reply } from './support/model-fake';
import { auditOf, expectEachStepOnce } from './support/run-audit';
import type { RunBody } from './support/stack';
import { fetchRunHistory, queuedActivities } from './support/temporal-history';
import { WorkerProcess } from './support/worker-process';

describe('A worker crash during an MCP tool call', () => {
  let model: ModelFake;
  let api: TestApi;
  let kit: McpTestServer;
  let worker: WorkerProcess | undefined;
  let killed = false;
  let owner: ApiClient;
  beforeAll(async () => {
    model = await ModelFake.start();
    api = await startApi(testConfig({ modelBaseUrl: model.baseUrl }));
    kit = await McpTestServer.start();
    // The third call is in flight on the server: the worker dies before the answer reaches it.
    kit.beforeAnswer = async (call) => {
      if (call.tool !== 'add' || call.args.a !== 3 || killed) return;
      killed = true;
      await worker!.kill();
    };
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([api?.close(), model?.close(), kit?.close()]);
  });

  async function runEnd(runUuid: string): Promise<RunBody> {
    for (const deadline = Date.now() + 90_000; ;) {
      const body = (await owner.get(`/runs/${runUuid}`)).body;
      if (body.status !== 'running' || Date.now() > deadline) return body;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  it('repeats only the interrupted call, and the audit shows the lost attempt and its retry', async () => {
    owner = await api.newUser();
    const server = (await owner.post('/mcp-servers', { name: 'kit', transport: 'streamable_http', url: kit.url, timeout_ms: 60_000 })).body;
    const workflow = (await owner.post('/workflows', { name: 'mcp-crash', steps: [agentStep({ name: 'adder', tools: ['kit.add'] })] }))
      .body;
    expect(server.name).toBe('kit');
    model.script(...[1, 2, 3, 4].map((a) => reply.toolCalls([{ name: 'kit__add', arguments: { a, b: 10 } }])), reply.json({ total: 80 }));

    worker = await WorkerProcess.start(api.config);
    const run = (await owner.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;
    for (const deadline = Date.now() + 60_000; !killed; await new Promise((resolve) => setTimeout(resolve, 100))) {
      if (Date.now() > deadline)
        throw new Error(`the third MCP call never arrived: ${JSON.stringify(kit.calls.map((call) => call.args))}\n${worker.output}`);
    }
    worker = await WorkerProcess.start(api.config);
    const body = await runEnd(run.uuid);

    expect(body.status).toBe('completed');
    const executed = (a: number) => kit.calls.filter((call) => call.tool === 'add' && call.args.a === a).length;
    expect([1, 2, 3, 4].map(executed)).toEqual([1, 1, 2, 1]); // the interrupted call, then its retry; no other twice
    expect(model.requests).toHaveLength(5);
    model.assertDone();
    type AuditedCall = {
      input: { a: number };
      attempt: number;
      status: string;
      error_message: string | null;
      tool_name: string;
      mcp_server: string;
    };
    const audited: AuditedCall[] = body.steps[0].tool_calls;
    expect(audited.filter((call) => call.status === 'completed').map((call) => [call.input.a, call.tool_name, call.mcp_server])).toEqual(
      [1, 2, 3, 4].map((a) => [a, 'kit.add', 'kit']),
    );
    expect(audited.filter((call) => call.input.a === 3).map((call) => [call.attempt, call.status, call.error_message])).toEqual([
      [1, 'failed', expect.stringMatching(/^Lost: the worker stopped/)],
      [2, 'completed', null],
    ]);
    const audit = await auditOf(api.app.get(DataSource), run.uuid);
    expectEachStepOnce(audit);
    expect(audit.tool_calls.filter((call) => call.status === 'completed')).toHaveLength(4);
    // The calls went through the task queue (the interrupted one once: its retry is the same activity); the rest was local.
    expect(queuedActivities(await fetchRunHistory(body.temporal.workflow_id))).toEqual(['callTool', 'callTool', 'callTool', 'callTool']);
  });
});
