// One trace from the request that starts a run, through the workflow and its activities, to the model
// and tool calls, as an OTLP receiver gets it from the API and from a worker process.
import { startApi, testConfig, type TestApi } from './support/api';
import { runLookupAgent } from './support/agent-run';
import { ModelFake } from './support/model-fake';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import { ToolServer } from './support/tool-server';
import { WorkerProcess } from './support/worker-process';

describe('Tracing', () => {
  let receiver: OtlpReceiver;
  let model: ModelFake;
  let tools: ToolServer;
  let api: TestApi;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    model = await ModelFake.start();
    tools = await ToolServer.start({ lookup: (args) => ({ found: args }) });
    api = await startApi({ ...testConfig({ modelBaseUrl: model.baseUrl }), tracing: { otlpEndpoint: receiver.url } });
    // Bundles the workflow code with Temporal's tracing interceptors, as a production worker does.
    worker = await WorkerProcess.start(api.config, 120_000, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([api?.close(), model?.close(), tools?.close()]);
    await receiver?.close();
  });

  it('links the API request, the workflow, its activities, the model calls and the tool call in one trace', async () => {
    const user = await api.newUser();
    const run = await runLookupAgent(user, model, tools);
    expect(run.status).toBe('completed');

    const root = (spans: ReceivedSpan[]) =>
      spans.find((span) => span.service === 'stepwise-api' && span.name === 'POST /api/v1/workflows/:uuid/runs');
    const inTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === root(spans)?.traceId);
    const has = (spans: ReceivedSpan[], service: string, name: RegExp) =>
      inTrace(spans).some((span) => span.service === service && name.test(span.name));
    const spans = await receiver.waitFor(
      (received) =>
        Boolean(root(received)) &&
        has(received, 'stepwise-worker', /^RunWorkflow:/) &&
        // The start, both turns (the short call's round and the answer after it) and the completion in one activity.
        inTrace(received).filter((span) => span.name === 'RunActivity:startAgentStep').length === 1 &&
        inTrace(received).filter((span) => span.name === 'chat test-model').length === 2 &&
        has(received, 'stepwise-worker', /^execute_tool lookup$/),
    );
    const trace = inTrace(spans);
    expect(trace.some((span) => span.service === 'stepwise-api' && /^StartWorkflow:/.test(span.name))).toBe(true);
    const chat = trace.find((span) => span.name === 'chat test-model' && span.attributes['gen_ai.usage.input_tokens'] === 11);
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'test-model',
      'gen_ai.usage.output_tokens': 5,
      'stepwise.run_uuid': run.uuid,
    });
    // Each model call hangs under its activity's span.
    const parent = trace.find((span) => span.spanId === chat?.parentSpanId);
    expect(parent?.name).toMatch(/^RunActivity:/);
    // The tool call too: a chain agent's short call runs inside the turn that asked for it, here in the start's activity.
    const tool = trace.find((span) => span.name === 'execute_tool lookup');
    expect(trace.find((span) => span.spanId === tool?.parentSpanId)?.name).toBe('RunActivity:startAgentStep');
    expect(trace.some((span) => span.name === 'RunActivity:agentTurn')).toBe(false);
    model.assertDone();
  });
});
