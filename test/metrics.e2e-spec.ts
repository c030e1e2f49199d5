// GET /metrics on the API and on the worker (its own figures plus the Temporal SDK's), moving with a run.
import { createServer } from 'node:net';
import { MetricsEndpoint } from '../apps/api/src/observability/metrics-endpoint';
import { startApi, testConfig, type TestApi } from './support/api';
import { runLookupAgent } from './support/agent-run';
import { ModelFake } from './support/model-fake';
import { ToolServer } from './support/tool-server';
import { WorkerProcess } from './support/worker-process';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The value of one sample line (`name{labels} value`), 0 when it is not there yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('Metrics', () => {
  let model: ModelFake;
  let api: TestApi;
  let tools: ToolServer;
  let worker: WorkerProcess | undefined;
  let workerPort: number;

  beforeAll(async () => {
    model = await ModelFake.start();
    tools = await ToolServer.start({ lookup: (args) => ({ found: args }) });
    api = await startApi(testConfig({ modelBaseUrl: model.baseUrl }));
    workerPort = await freePort();
    worker = await WorkerProcess.start(api.config, undefined, { WORKER_METRICS_PORT: String(workerPort) });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([api?.close(), model?.close(), tools?.close()]);
  });

  const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

  it('counts requests, runs, model calls, tokens and tool calls, and shows the Temporal SDK worker metrics', async () => {
    const apiPort = api.app.get(MetricsEndpoint).port!;
    const [apiBefore, workerBefore] = await Promise.all([scrape(apiPort), scrape(workerPort)]);
    const user = await api.newUser();
    expect((await runLookupAgent(user, model, tools)).status).toBe('completed');

    const [apiAfter, workerAfter] = await Promise.all([scrape(apiPort), scrape(workerPort)]);
    const moved = (before: string, after: string, name: string, labels?: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved(apiBefore, apiAfter, 'stepwise_runs_started_total')).toBe(1);
    expect(
      moved(apiBefore, apiAfter, 'stepwise_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/workflows/:uuid/runs',
        status: '201',
      }),
    ).toBe(1);
    expect(apiAfter).toMatch(/^stepwise_runs_awaiting_input\{service="api"\} \d+$/m);

    expect(moved(workerBefore, workerAfter, 'stepwise_runs_finished_total', { status: 'completed' })).toBe(1);
    expect(
      moved(workerBefore, workerAfter, 'stepwise_model_calls_total', { provider: 'openai', model: 'test-model', outcome: 'completed' }),
    ).toBe(2);
    expect(moved(workerBefore, workerAfter, 'stepwise_model_tokens_total', { model: 'test-model', kind: 'prompt' })).toBe(31);
    expect(moved(workerBefore, workerAfter, 'stepwise_model_tokens_total', { model: 'test-model', kind: 'completion' })).toBe(8);
    expect(moved(workerBefore, workerAfter, 'stepwise_tool_calls_total', { transport: 'http', outcome: 'completed' })).toBe(1);
    // A chain agent whose tools are short is one activity: its start runs on into its turns, its short tool call
    // runs inside the turn that asked for it, and the final answer's turn completes the step.
    const activitiesCompleted = (activity: string) =>
      moved(workerBefore, workerAfter, 'stepwise_activity_duration_seconds_count', { activity, outcome: 'completed' });
    expect(activitiesCompleted('startAgentStep')).toBe(1);
    expect(activitiesCompleted('agentTurn')).toBe(0);
    expect(activitiesCompleted('callTool')).toBe(0);
    expect(activitiesCompleted('completeAgentStep')).toBe(0);
    // The SDK's own: task slots, workflow tasks' schedule-to-start latency, and the local activities a
    // chain's agent rounds run as (no activity of this run goes through the task queue).
    expect(workerAfter).toMatch(/^temporal_worker_task_slots_available\{/m);
    expect(workerAfter).toMatch(/^temporal_workflow_task_schedule_to_start_latency/m);
    expect(workerAfter).toMatch(/^temporal_local_activity_execution_latency/m);
    model.assertDone();
  });
});
