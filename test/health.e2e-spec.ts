// Readiness follows what runs need (MySQL, Temporal, a worker polling), and a run start while Temporal is
// down is refused with a 503 that writes nothing. A private Temporal server: this spec stops it.
import { startApi, testConfig } from './support/api';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { TemporalDevServer } from './support/temporal-dev-server';

describe('Health and readiness', () => {
  let temporal: TemporalDevServer;
  let stack: Stack;

  beforeAll(async () => {
    temporal = await TemporalDevServer.start();
  });
  useStack(
    (started) => (stack = started),
    () => ({ temporalAddress: temporal.address }),
  );
  afterAll(() => temporal?.dispose());

  const ready = () => stack.api.anonymous().get('/health/ready');

  /** Readiness as soon as it answers `status`: an answer is kept a second, so a change shows that much later. */
  async function answeredReadiness(status = 200, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await ready();
      if (answer.status === status || Date.now() > deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('is live and ready while MySQL, Temporal and a worker are there', async () => {
    expect(await stack.api.anonymous().get('/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await answeredReadiness()).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', temporal: 'ok', worker: 'ok' } },
    });
  });

  it('is not ready without a worker polling the task queue, and names it', async () => {
    // An API of its own on a task queue no worker serves.
    const lonely = await startApi(testConfig({ temporalAddress: temporal.address }));
    try {
      expect(await lonely.anonymous().get('/health/ready')).toMatchObject({
        status: 503,
        body: {
          status: 'unavailable',
          checks: { database: 'ok', temporal: 'ok', worker: expect.stringContaining('no worker polls task queue test-') },
        },
      });
    } finally {
      await lonely.close();
    }
  });

  it('fails readiness and refuses run starts with a 503 while Temporal is down, writing nothing, then recovers', async () => {
    const workflow = await stack.createWorkflow([llmStep()]);
    const before = (await stack.user.get(`/workflows/${workflow.uuid}/runs`)).body.total;
    await temporal.stop();
    try {
      const down = await answeredReadiness(503);
      expect(down).toMatchObject({ status: 503, body: { checks: { database: 'ok', temporal: expect.stringMatching(/^unavailable/) } } });

      const refused = await stack.user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { text: 'hi' } });
      expect(refused).toMatchObject({ status: 503, body: { code: 'TEMPORAL_UNAVAILABLE' } });
      expect((await stack.user.get(`/workflows/${workflow.uuid}/runs`)).body.total).toBe(before);
    } finally {
      await temporal.launch();
    }
    expect(await answeredReadiness()).toMatchObject({ status: 200, body: { status: 'ok' } });
    stack.model.script(reply.text('back'));
    const run = await stack.waitForRun((await stack.startRun(workflow.uuid)).uuid);
    expect(run.status).toBe('completed');
  });
});
