// A worker killed with SIGKILL in the middle of an agent's tool call: a new worker picks the run up,
// completed model turns and tool calls are not repeated, and the run completes.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startApi, testConfig, type TestApi } from './support/api';
import { agentStep } from './support/factories';
import { ModelFake, reply } from './support/model-fake';
import { auditOf, expectEachStepOnce } from './support/run-audit';
import { ToolServer } from './support/tool-server';
import { WorkerProcess } from './support/worker-process';

describe('A worker crash during an agent step', () => {
  let model: ModelFake;
  let api: TestApi;
  let tools: ToolServer;
  let worker: WorkerProcess;
  let killed = false;

  beforeAll(async () => {
    model = await ModelFake.start();
    api = await startApi(testConfig({ modelBaseUrl: model.baseUrl }));
    tools = await ToolServer.start({
      lookup: async (args, call) => {
        const { n } = args as { n: number };
        if (n === 3 && !killed) {
          // The third call is in flight: the worker dies before it gets the answer. Waiting for its exit
          // and then for this call's socket to close means the answer below is never written.
          killed = true;
          await worker.kill();
          await tools.waitUntil(() => call.aborted, 10_000, () => 'the killed worker\'s connection is still open');
        }
        return { n, value: n * 10 };
      },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([api.close(), model.close(), tools.close()]);
  });

  it('completes the run and the tool server sees each completed call exactly once', async () => {
    const user = await api.newUser();
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', { name, description: 'look up n', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
    const agent = agentStep({ name: 'looker', tools: [name] });
    const wf = (await user.post('/workflows', { name: 'crash', steps: [agent] })).body;
    const calls = [1, 2, 3, 4].map((n) => ({ name, arguments: { n } }));
    model.script(...calls.map((call) => reply.toolCalls([call])), reply.json({ total: 100 }));

    worker = await WorkerProcess.start(api.config);
    const run = (await user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body;
    await tools.waitUntil(() => killed && tools.calls.some((call) => call.aborted), 60_000, () => 'the third tool call never arrived');
    worker = await WorkerProcess.start(api.config);

    let body = (await user.get(`/runs/${run.uuid}`)).body;
    for (const deadline = Date.now() + 90_000; body.status === 'running' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      body = (await user.get(`/runs/${run.uuid}`)).body;
    }

    expect(body.status).toBe('completed');
    expect(body.steps[0].output.raw_data).toEqual({ total: 100 });
    for (const n of [1, 2, 3, 4]) {
      const completed = tools.calls.filter((call) => (call.args as { n: number }).n === n && call.completed);
      expect(completed).toHaveLength(1);
    }
    expect(tools.countOf('lookup', { n: 3 })).toBe(2); // the interrupted call, then its retry
    expect(model.requests).toHaveLength(5); // no model turn ran twice
    model.assertDone();
    type AuditedCall = { input: { n: number }; attempt: number; status: string; error_message: string | null };
    const audited: AuditedCall[] = body.steps[0].tool_calls;
    expect(audited.filter((call) => call.status === 'completed').map((call) => call.input.n)).toEqual([1, 2, 3, 4]);
    // The attempt that died with the worker is audited too, closed as lost when its retry started.
    expect(audited.filter((call) => call.input.n === 3).map((call) => [call.attempt, call.status, call.error_message])).toEqual([
      [1, 'failed', expect.stringMatching(/^Lost: the worker stopped/)],
      [2, 'completed', null],
    ]);
    // And in MySQL itself: no audit row lost, none doubled.
    const audit = await auditOf(api.app.get(DataSource), run.uuid);
    expectEachStepOnce(audit);
    expect(audit.model_calls.map((call) => [call.turn, call.status])).toEqual([1, 2, 3, 4, 5].map((turn) => [turn, 'completed']));
    expect(audit.tool_calls.filter((call) => call.status === 'completed')).toHaveLength(4);
  });
});
