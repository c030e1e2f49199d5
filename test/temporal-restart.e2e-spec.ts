// Temporal itself stops in the middle of a run and comes back on the same database file: the run goes
// on where it was, no completed step, model turn or tool call runs again, and every audit row is there.
// The spec has a private dev server: the shared one serves the other specs and is never stopped.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { agentStep } from './support/factories';
import { expectEachStepAskedOnce, startFaultChain } from './support/fault-chain';
import { reply } from './support/model-fake';
import { auditOf, expectEachStepOnce, waitForAudit, type RunAudit } from './support/run-audit';
import { useStack, type Stack } from './support/stack';
import { TemporalDevServer } from './support/temporal-dev-server';
import { ToolServer, toolScript } from './support/tool-server';

describe('A Temporal server restart during a run', () => {
  let temporal: TemporalDevServer;
  let stack: Stack;
  let db: DataSource;

  beforeAll(async () => {
    temporal = await TemporalDevServer.start();
  });
  useStack(
    (started) => (stack = started),
    () => ({ temporalAddress: temporal.address }),
  );
  beforeAll(() => {
    db = stack.api.app.get(DataSource);
  });
  afterAll(() => temporal?.dispose()); // after the stack has closed: registered after useStack

  /**
   * Stops Temporal, waits until the work in flight has finished with nobody to tell (`finished`), and
   * starts it again only after the heartbeat timeout: back up, the server gives the finished attempt up
   * as lost and retries it, and the retry must find the work done rather than do it again.
   */
  async function restartAround(runUuid: string, finished: (audit: RunAudit) => boolean): Promise<string> {
    const stopped = Date.now();
    await temporal.stop();
    await waitForAudit(db, runUuid, finished);
    const outage = (stack.api.config.temporal.heartbeatTimeoutSeconds + 1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stopped + outage - Date.now())));
    const restarting = Date.now();
    await temporal.launch();
    return `down ${Date.now() - stopped} ms (restart ${Date.now() - restarting} ms)`;
  }

  it('completes a chain of LLM steps, each asked of the model once, with its whole audit', async () => {
    const started = Date.now();
    // The second step's answer comes while Temporal is down: its activity finishes with nobody to tell.
    const run = await startFaultChain(stack);
    const outage = await restartAround(run.uuid, (audit) => audit.instances[1].status === 'completed');
    const done = await stack.waitForRun(run.uuid);
    console.log(`temporal restart, LLM chain: ${outage}, run ${Date.now() - started} ms in all`);

    expect(done.status).toBe('completed');
    expectEachStepAskedOnce(stack);
    expectEachStepOnce(await auditOf(db, run.uuid));
    expect(done.steps.map((step) => step.output!.raw_data)).toEqual(['one', 'two', 'three']);
  });

  it('completes an agent whose tool call finished while Temporal was down, without calling the tool again', async () => {
    const tools = await ToolServer.start({ lookup: (args) => ({ found: (args as { q: string }).q.toUpperCase() }) });
    try {
      const name = `lookup_${randomUUID().slice(0, 6)}`;
      await stack.user.post('/tools', { name, description: 'look up', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
      const wf = await stack.createWorkflow([agentStep({ tools: [name] })]);
      stack.model.script(reply.toolCalls([{ name, arguments: { q: 'x' } }]), reply.json({ answer: 'X' }));
      tools.script('lookup', toolScript.delay(1500));

      const run = await stack.startRun(wf.uuid, {});
      await tools.waitForCalls(1);
      const outage = await restartAround(run.uuid, (audit) => audit.tool_calls.some((call) => call.status === 'completed'));
      const done = await stack.waitForRun(run.uuid);
      console.log(`temporal restart, agent tool call: ${outage}`);

      expect(done.status).toBe('completed');
      expect(done.steps[0].output!.raw_data).toEqual({ answer: 'X' });
      expect(tools.calls).toHaveLength(1);
      expect(stack.model.requests).toHaveLength(2);
      const audit = await auditOf(db, run.uuid);
      expectEachStepOnce(audit);
      expect(audit.tool_calls.map((call) => call.status)).toEqual(['completed']);
    } finally {
      await tools.close();
    }
  });
});
