// What an engineer on call reads: one JSON line per event, the API's tied to the request (its id, the
// user) and the run, the worker's to the run, the activity and its attempt; a step that fails is one line.
import { randomUUID } from 'node:crypto';
import { runEnd } from './support/agent-run';
import { startApi, testConfig, type TestApi } from './support/api';
import { llmStep } from './support/factories';
import { ModelFake, reply } from './support/model-fake';
import { WorkerProcess } from './support/worker-process';

type Line = Record<string, unknown>;

const parse = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

describe('Structured logs', () => {
  let model: ModelFake;
  let api: TestApi;
  let worker: WorkerProcess | undefined;
  const apiLines: string[] = [];

  beforeAll(async () => {
    model = await ModelFake.start();
    const base = testConfig({ modelBaseUrl: model.baseUrl });
    api = await startApi(
      { ...base, log: { level: 'info', format: 'json' } },
      { logDestination: { write: (line: string) => apiLines.push(line) } },
    );
    worker = await WorkerProcess.start(api.config, undefined, { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([api?.close(), model?.close()]);
  });

  it('ties the API lines to the request and the run, and the worker lines to the run, activity and attempt', async () => {
    const user = await api.newUser();
    const workflow = (await user.post('/workflows', { name: 'logged', steps: [llmStep({ name: 'fine' }), llmStep({ name: 'refused' })] }))
      .body;
    model.script(reply.text('fine answer'), reply.error(400, { message: 'model fake: this prompt is refused' }));
    const requestId = `req-${randomUUID()}`;
    const started = await user.call(
      'POST',
      `/workflows/${workflow.uuid}/runs`,
      { trigger_output: { text: 'x' } },
      { 'x-request-id': requestId },
    );
    expect(started.headers.get('x-request-id')).toBe(requestId);
    const runUuid = started.body.uuid as string;
    expect((await runEnd(user, runUuid)).status).toBe('partial_success');

    const lines = parse(apiLines.join(''));
    const ofRequest = lines.filter((line) => line.request_id === requestId);
    expect(ofRequest).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'run started',
          run_uuid: runUuid,
          workflow_uuid: workflow.uuid,
          user_id: user.userId,
          service: 'api',
          level: 'info',
        }),
        expect.objectContaining({
          msg: 'request',
          method: 'POST',
          path: `/api/v1/workflows/${workflow.uuid}/runs`,
          status: 201,
          user_id: user.userId,
          duration_ms: expect.any(Number),
        }),
      ]),
    );

    // The worker's lines reach its pipe on their own time: a chain's local activities end the run without a
    // server round trip after the failure, so the lines may trail the run's end by a few milliseconds.
    const workerLines = () =>
      parse(
        worker!.output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .join('\n'),
      );
    const ofRun = () => workerLines().filter((line) => line.run_uuid === runUuid);
    const failures = () => ofRun().filter((line) => line.level === 'warn' && (line.error as Line | undefined)?.message);
    for (const deadline = Date.now() + 5000; !failures().length && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ofRun()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          service: 'worker',
          activity_type: 'runLlmStep',
          attempt: 1,
          workflow_id: `run-${runUuid}`,
          step: 'fine',
        }),
      ]),
    );
    expect(failures().length).toBeGreaterThan(0);
    for (const failure of failures()) expect((failure.error as Line).stack).toBeUndefined();
    // Nothing but JSON lines: no multi-line stack trace on the console.
    expect(worker!.output.split('\n').filter((line) => line && !line.startsWith('{'))).toEqual([]);
    model.assertDone();
  });
});
