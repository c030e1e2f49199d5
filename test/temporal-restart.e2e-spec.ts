// Temporal itself stops in the middle of a run and comes back on the same database file: the run goes
// on where it was, no completed step runs again, and every audit row is there. The spec has a private
// dev server: the shared one serves the other specs and is never stopped.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { auditOf, expectEachStepOnce, waitForAudit } from './support/run-audit';
import { startStack, type Stack } from './support/stack';
import { TemporalDevServer } from './support/temporal-dev-server';

describe('A Temporal server restart during a run', () => {
  let temporal: TemporalDevServer;
  let stack: Stack;

  beforeAll(async () => {
    temporal = await TemporalDevServer.start();
    stack = await startStack({ temporalAddress: temporal.address });
  });
  afterAll(async () => {
    await stack?.close();
    await temporal?.dispose();
  });

  it('completes the run, each step asked of the model once, with its whole audit', async () => {
    const steps = ['first', 'second', 'third'].map((name) => llmStep({ name, system_prompt: `Step ${name}: $previous_output` }));
    const wf = (await stack.user.post('/workflows', { name: `restart-${randomUUID().slice(0, 8)}`, steps })).body;
    // The second step's answer comes while Temporal is down: its activity finishes with nobody to tell.
    stack.model.script(reply.text('one'), reply.text('two', { delayMs: 1500 }), reply.text('three'));
    const db = stack.api.app.get(DataSource);
    const started = Date.now();

    const run = (await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: { text: 'go' } })).body;
    await stack.model.waitForRequests(2);
    await temporal.stop();
    const stopped = Date.now();
    await waitForAudit(db, run.uuid, (audit) => audit.instances[1].status === 'completed');
    // Down longer than the heartbeat timeout: back up, the server gives the finished attempt up as lost
    // and retries it, and the retry must find the step completed rather than ask the model again.
    const outage = (stack.api.config.temporal.heartbeatTimeoutSeconds + 1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stopped + outage - Date.now())));
    const restarting = Date.now();
    await temporal.launch();
    const back = Date.now();
    const done = await stack.waitForRun(run.uuid);
    console.log(`temporal restart: down ${back - stopped} ms (restart ${back - restarting} ms), run ${Date.now() - started} ms in all`);

    expect(done.status).toBe('completed');
    expect(stack.model.requests.map((request) => request.body.messages[0].content)).toEqual([
      expect.stringMatching(/^Step first: /),
      'Step second: one',
      'Step third: two',
    ]);
    stack.model.assertDone();
    expectEachStepOnce(await auditOf(db, run.uuid));
    expect(done.steps.map((step: { output: { raw_data: unknown } }) => step.output.raw_data)).toEqual(['one', 'two', 'three']);
  });
});
