// Live runs (#28) end to end: a run's events and its model's streamed answer over SSE, through the real
// openai and Anthropic SDKs against the fakes in streaming mode, the API in-process and the built worker
// as a child process (so one test can SIGKILL it mid-stream), on the real Temporal and MySQL.
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../libs/config/src';
import type { Browser } from 'puppeteer-core';
import { anthropicReply, startAnthropicFake } from './support/anthropic-fake';
import { launchChromium } from './support/chromium';
import { startApi, testConfig, type ApiClient, type TestApi } from './support/api';
import { registerLookupTool } from './support/agent-run';
import { agentStep, llmStep } from './support/factories';
import { ModelFake, reply } from './support/model-fake';
import { openSse, type SseEvent } from './support/sse';
import { McpTestClient } from './support/mcp-client';
import { ToolServer } from './support/tool-server';
import { WorkerProcess } from './support/worker-process';

const CLAUDE = 'claude-test';

describe('Live runs', () => {
  let model: ModelFake;
  let anthropic: ModelFake;
  let tools: ToolServer;
  let config: AppConfig;
  let api: TestApi;
  let user: ApiClient;
  let worker: WorkerProcess;
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;

  const startWorker = async () => {
    worker = await WorkerProcess.start(config, 60_000, { ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key' });
  };

  beforeAll(async () => {
    ({ browser, close: closeBrowser } = await launchChromium());
    model = await ModelFake.start();
    anthropic = await startAnthropicFake();
    tools = await ToolServer.start({ lookup: (args) => ({ found: args }) });
    const base = testConfig({ modelBaseUrl: model.baseUrl });
    config = {
      ...base,
      providers: { ...base.providers, anthropic: { baseUrl: anthropic.origin, apiKey: 'test-key' } },
      // Long enough to outlast a worker's restart: a stream idle this long ends (the client would reconnect).
      assistant: { ...base.assistant, streamIdleSeconds: 60 },
    };
    api = await startApi(config);
    user = await api.newUser();
    await startWorker();
  });
  afterEach(() => {
    for (const fake of [model, anthropic]) {
      fake.assertDone();
      fake.reset();
    }
  });
  afterAll(async () => {
    await closeBrowser?.();
    await worker?.stop();
    await Promise.all([api?.close(), model?.close(), anthropic?.close(), tools?.close()]);
  });

  const startRun = async (steps: Record<string, unknown>[]) => {
    const workflow = await user.post('/workflows', { name: `live-${randomUUID().slice(0, 8)}`, steps });
    expect(workflow.status).toBe(201);
    const run = await user.post(`/workflows/${workflow.body.uuid}/runs`, { trigger_output: { text: 'hello' } });
    expect(run.status).toBe(201);
    return { workflowUuid: workflow.body.uuid as string, runUuid: run.body.uuid as string };
  };
  const watch = (runUuid: string, headers: Record<string, string> = {}) =>
    openSse(`${api.baseUrl}/runs/${runUuid}/events`, { key: user.key!, headers });
  const typesOf = (events: SseEvent[]) => events.map((event) => event.data.type as string);
  const eventsOf = (events: SseEvent[]) => events.filter((event) => !Number.isNaN(event.id));
  const textOf = (events: SseEvent[], attempt = 1) =>
    events
      .filter((event) => event.data.type === 'delta' && event.data.kind === 'text' && event.data.attempt === attempt)
      .map((event) => event.data.text as string)
      .join('');

  it("streams a chain's answer before its step completes, every event once in order, ending with run_ended; a reconnect resumes after Last-Event-ID", async () => {
    const text = 'Stepwise runs durable workflows of model calls.';
    model.script(reply.text(text, { stream: { pieceChars: 6, chunkDelayMs: 40 } }));
    const { runUuid } = await startRun([llmStep()]);

    const first = await watch(runUuid);
    // Disconnects mid-answer, as a closed tab does, then picks up where it was.
    await waitUntil(first, (events) => events.some((event) => event.data.type === 'delta'));
    first.abort();
    const seen = await first.done;
    const lastId = eventsOf(seen).at(-1)!.id;
    const second = await watch(runUuid, { 'Last-Event-ID': String(lastId) });
    const rest = await second.done;

    const events = [...eventsOf(seen), ...eventsOf(rest)];
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(typesOf(events)).toEqual([
      'run_started',
      'step_started',
      'model_call_started',
      'model_call_finished',
      'step_completed',
      'run_ended',
    ]);
    expect(rest.at(-1)!.data).toMatchObject({ type: 'run_ended', status: 'completed', total_tokens: 15 });
    // The completed step's event carries its output (small enough), as a structured step's validated object would be.
    expect(rest.find((event) => event.data.type === 'step_completed')!.data).toMatchObject({ output: text, summary: expect.any(String) });
    // The text came in pieces before the step completed; the late half's text so far, then its live pieces.
    const deltaAt = seen.findIndex((event) => event.data.type === 'delta');
    expect(deltaAt).toBeGreaterThan(typesOf(seen).indexOf('model_call_started'));
    const joined = rest.find((event) => event.data.type === 'text_so_far');
    expect(`${joined?.data.text ?? textOf(seen)}${textOf(rest)}`).toBe(text);
    const run = await user.get(`/runs/${runUuid}`);
    expect(run.body.steps[0].output.raw_data).toBe(text);
    expect(model.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    // A client that comes back after the end replays what it missed and is done; another key's client sees nothing.
    const replay = await watch(runUuid, { 'Last-Event-ID': '3' });
    expect(typesOf(await replay.done)).toEqual(['model_call_finished', 'step_completed', 'run_ended']);
    const stranger = await openSse(`${api.baseUrl}/runs/${runUuid}/events`, { key: (await api.newUser()).key! });
    expect(stranger.status).toBe(404);
    expect((await watch(runUuid, { 'Last-Event-ID': '99' })).status).toBe(422);
  });

  it("streams an agent's tool-call arguments and its final text, with the tool call's events between its turns", async () => {
    const name = await registerLookupTool(user, tools.url('lookup'));
    model.script(
      // Answered once the watcher below is connected: it sees every piece live.
      reply.toolCalls([{ name, arguments: { q: 'stepwise engine' }, id: 'call_live' }], { delayMs: 500, stream: { pieceChars: 5 } }),
      reply.text('It is a workflow engine.', { stream: { pieceChars: 5 } }),
    );
    const { runUuid } = await startRun([agentStep({ tools: [name] })]);

    const events = await (await watch(runUuid)).done;

    const types = typesOf(events).filter((type) => type !== 'delta');
    expect(types).toEqual([
      'run_started',
      'step_started',
      'model_call_started',
      'model_call_finished',
      'tool_call_started',
      'tool_call_finished',
      'model_call_started',
      'model_call_finished',
      'step_completed',
      'run_ended',
    ]);
    const toolDeltas = events.filter((event) => event.data.type === 'delta' && event.data.turn === 1);
    expect(toolDeltas[0].data).toMatchObject({ kind: 'tool_call', index: 0, id: 'call_live', name });
    expect(
      toolDeltas
        .filter((event) => event.data.kind === 'tool_args')
        .map((event) => event.data.text)
        .join(''),
    ).toBe('{"q":"stepwise engine"}');
    expect(
      events
        .filter((event) => event.data.type === 'delta' && event.data.turn === 2)
        .map((event) => event.data.text)
        .join(''),
    ).toBe('It is a workflow engine.');
    expect(events.find((event) => event.data.type === 'tool_call_finished')!.data).toMatchObject({ tool_name: name, status: 'completed' });
  });

  it("streams an Anthropic step through its SDK, and all of a workflow's runs' events on the workflow's stream", async () => {
    anthropic.script(anthropicReply.text('Bonjour le monde', { delayMs: 500, stream: { pieceChars: 3 } }));
    const { workflowUuid, runUuid } = await startRun([llmStep({ provider: 'anthropic', model: CLAUDE })]);

    const events = await (await watch(runUuid)).done;
    const all = await openSse(`${api.baseUrl}/workflows/${workflowUuid}/events`, { key: user.key! });
    await waitUntil(all, (seen) => seen.some((event) => event.data.type === 'run_ended'));
    all.abort();

    expect(events.find((event) => event.data.type === 'model_call_started')!.data).toMatchObject({ provider: 'anthropic', model: CLAUDE });
    expect(textOf(events)).toBe('Bonjour le monde');
    expect(anthropic.requests[0].body.stream).toBe(true);
    const workflowEvents = await all.done;
    expect(typesOf(workflowEvents)).toEqual(typesOf(eventsOf(events)));
    expect(workflowEvents.map((event) => event.data.run_uuid)).toEqual(workflowEvents.map(() => runUuid));
  });

  it("shows the answer on the run's page as it streams, before its step completes", async () => {
    const text = 'Streaming into the browser, piece by piece.';
    model.script(reply.text(text, { delayMs: 1000, stream: { pieceChars: 4, chunkDelayMs: 150 } }));
    const { runUuid } = await startRun([llmStep()]);
    const page = await browser.newPage();
    // In the page (no DOM types here): the key as the page keeps it, then what it shows.
    await page.evaluateOnNewDocument(`sessionStorage.setItem('stepwise-key', ${JSON.stringify(user.key)})`);

    await page.goto(api.baseUrl.replace('/api/v1', `/runs/${runUuid}`));
    const firstSeen = await page.waitForFunction(
      `(() => {
        const shown = document.querySelector('pre.answer')?.textContent;
        return shown ? [shown, document.querySelector('.step .status')?.textContent ?? ''] : false;
      })()`,
      { polling: 10, timeout: 30_000 },
    );
    const [partial, statusThen] = (await firstSeen.jsonValue()) as [string, string];
    await page.waitForFunction(`document.querySelector('#run-status')?.textContent === 'completed'`, { timeout: 30_000 });

    expect(statusThen).toMatch(/^running/);
    expect(partial.length).toBeLessThan(text.length);
    expect(text.startsWith(partial)).toBe(true);
    expect(await page.$eval('pre.answer', (pre) => pre.textContent)).toBe(text);
    expect(await page.$eval('.step .status', (status) => status.textContent)).toMatch(/^completed/);
    expect(await page.$eval('#temporal', (link) => link.getAttribute('href'))).toBe(`/temporal-ui?workflow_id=run-${runUuid}`);
    await page.goto(api.baseUrl.replace('/api/v1', '/runs'));
    await page.waitForSelector(`a[href="/runs/${runUuid}"]`);
    await page.close();
  });

  it('follows a run over MCP with watch_run: its events in order until run_ended, with the answer in flight so far', async () => {
    const text = 'Progress for an MCP client.';
    model.script(reply.text(text, { delayMs: 300, stream: { pieceChars: 3, chunkDelayMs: 100 } }));
    const { runUuid } = await startRun([llmStep()]);
    const mcp = await McpTestClient.connect(user);
    try {
      const seen: { type: string; seq: number }[] = [];
      const partials: string[] = [];
      for (let after = 0, ended = false; !ended;) {
        const progress = await mcp.ok('watch_run', { run_uuid: runUuid, after, wait_seconds: 5 });
        seen.push(...progress.events);
        partials.push(...progress.answers_in_flight.map((answer: { text: string }) => answer.text));
        ({ last_event_id: after, run_ended: ended } = progress);
      }

      expect(seen.map((event) => event.seq)).toEqual(seen.map((_, index) => index + 1));
      expect(seen.map((event) => event.type).at(-1)).toBe('run_ended');
      expect(partials.every((partial) => text.startsWith(partial))).toBe(true);
      expect(await mcp.ok('watch_run', { run_uuid: runUuid, after: seen.length, wait_seconds: 0 })).toMatchObject({
        events: [],
        run_ended: true,
      });
    } finally {
      await mcp.close();
    }
  });

  it("tells a wait for a person with the step's input_schema, and goes on to the end once answered", async () => {
    const schema = { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' } } };
    const human = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?', input_schema: schema };
    const { runUuid } = await startRun([human]);
    const stream = await watch(runUuid);
    await waitUntil(stream, (events) => events.some((event) => event.data.type === 'awaiting_input'));

    expect((await user.post(`/runs/${runUuid}/steps/${human.uuid}/input`, { input: { approved: true } })).status).toBeLessThan(300);
    const events = await stream.done;

    expect(events.find((event) => event.data.type === 'awaiting_input')!.data).toMatchObject({
      step_uuid: human.uuid,
      input_schema: schema,
    });
    expect(typesOf(events).slice(-3)).toEqual(['step_completed', 'run_status', 'run_ended']);
  });

  it('announces the attempt a new worker makes after the first was SIGKILLed mid-stream; the answer is the second attempt’s alone', async () => {
    const second = 'The second attempt answers whole.';
    model.script(
      reply.text('The first attempt never finishes this sentence', { stream: { pieceChars: 4, stallAfterChunks: 4 } }),
      reply.text(second, { stream: { pieceChars: 5 } }),
    );
    const { runUuid } = await startRun([llmStep()]);
    const stream = await watch(runUuid);
    // A watcher that joins after the first attempt stalled gets its pieces as text_so_far instead of deltas; one
    // that joins before the first piece committed gets the call's text_so_far empty, and the pieces as deltas after.
    const answering = (event: SseEvent) => event.data.type === 'delta' || (event.data.type === 'text_so_far' && event.data.text !== '');
    await waitUntil(stream, (events) => events.some(answering));

    await worker.kill();
    await startWorker();
    const events = await stream.done;

    const types = typesOf(events).filter((type) => type !== 'delta');
    expect(types.slice(-6)).toEqual([
      'model_call_finished',
      'attempt_restarted',
      'model_call_started',
      'model_call_finished',
      'step_completed',
      'run_ended',
    ]);
    const restarted = events.find((event) => event.data.type === 'attempt_restarted')!.data;
    expect(restarted).toMatchObject({ turn: 1, attempt: 2, previous_attempt: 1 });
    const joined = events.find((event) => event.data.type === 'text_so_far' && event.data.attempt === 1);
    expect(`${joined?.data.text ?? ''}${textOf(events, 1)}`).toBe('The first attempt never finishes this sentence'.slice(0, 12));
    expect(textOf(events, 2)).toBe(second);
    const run = await user.get(`/runs/${runUuid}`);
    expect(run.body.status).toBe('completed');
    expect(run.body.steps[0].output.raw_data).toBe(second);
    expect(run.body.steps[0].model_calls.map((call: { attempt: number; status: string }) => [call.attempt, call.status])).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
  });
});

/** Resolves once the stream's events satisfy `condition` (60 s at most). */
async function waitUntil(stream: Awaited<ReturnType<typeof openSse>>, condition: (events: SseEvent[]) => boolean): Promise<void> {
  for (const deadline = Date.now() + 60_000; !condition(stream.events);) {
    if (Date.now() > deadline) throw new Error(`no such event in ${JSON.stringify(stream.events.map((event) => event.data.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
