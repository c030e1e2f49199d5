// A run whose call kills every worker that takes it (a heap exhausted by what the step handles): instead of
// a crash loop through the fleet, the run is stopped with RUN_QUARANTINED once the call has died in flight
// with POISON_ATTEMPTS_LIMIT (3) workers, the next worker lives on and runs other runs, and the reconciler
// never starts such a run again. Real worker processes, killed with SIGKILL while the call is in flight.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { DataSource } from 'typeorm';
import { RunReconciler } from '../libs/runs/src';
import { TemporalClient } from '../apps/api/src/temporal/temporal-client';
import { runEnd } from './support/agent-run';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import type { RunBody } from './support/stack';
import { ToolServer } from './support/tool-server';
import { useWorkerProcessStack, WorkerProcess } from './support/worker-process';

const LIMIT = 3; // POISON_ATTEMPTS_LIMIT's default, which the workers and the API run with here

/** Retries enough that Temporal's own attempt limit is not what stops the run, one second apart. */
const MANY_RETRIES = { max_attempts: 10, initial_interval_seconds: 1, backoff_coefficient: 1, maximum_interval_seconds: 1 };

type AuditedCall = { attempt: number; status: string; error_message: string | null };
const attemptsOf = (calls: AuditedCall[]) => calls.map((call) => [call.attempt, call.status, call.error_message]);
const died = [1, 2, 3].map((attempt) => [attempt, 'failed', expect.stringMatching(/^Lost: the worker stopped/)]);

describe('A run whose call kills the workers that take it', () => {
  const fixture = useWorkerProcessStack();
  let tools: ToolServer;

  beforeAll(async () => {
    // The poisonous tool never answers: each call is in flight when the spec kills its worker.
    tools = await ToolServer.start({ poison: () => new Promise(() => undefined) });
  });
  afterAll(() => tools.close());
  // Each spec's workers are its own: one left polling would take the next spec's calls.
  afterEach(async () => {
    await fixture.worker?.stop();
    fixture.worker = undefined;
  });

  /** Kills the worker running now once `inFlight(death)` holds, `LIMIT` times, each time starting the next one. */
  async function killWorkersInTurn(
    inFlight: (death: number) => Promise<void>,
    startNext = (death: number) => death < LIMIT,
  ): Promise<void> {
    for (let death = 1; death <= LIMIT; death++) {
      await inFlight(death);
      await fixture.worker!.kill();
      fixture.worker = startNext(death) ? await WorkerProcess.start(fixture.api.config) : undefined;
    }
  }

  // A queued step's attempts move on after a heartbeat timeout (3 s here); a chain's LLM step is a local
  // activity, which Temporal runs again after the workflow task times out (10 s) with no attempt limit at all.
  it.each([
    ['a queued LLM step', { execution: 'queued' }],
    ["a chain's LLM step (a local activity)", {}],
  ])(
    'fails the run with RUN_QUARANTINED at the limit instead of sending the call again (%s), and the next worker completes another run',
    async (_kind, execution) => {
      const { model, api } = fixture;
      model.reset();
      const user = await api.newUser();
      const poisonous = llmStep({ name: 'poisonous', ...execution, retry_policy: MANY_RETRIES });
      const workflow = (await user.post('/workflows', { name: `poison-${randomUUID().slice(0, 6)}`, steps: [poisonous] })).body;
      // The answer never comes in time: every attempt is in flight when its worker dies.
      model.respondWith(() => reply.text('too late', { delayMs: 60_000 }));

      fixture.worker = await WorkerProcess.start(api.config);
      const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { text: 'x' } })).body;
      await killWorkersInTurn(
        (death) => model.waitForRequests(death, 60_000),
        () => true,
      );
      const body: RunBody = await runEnd(user, run.uuid);

      expect(body.status).toBe('failed');
      expect(body.error_message).toMatch(
        /^Step "poisonous" failed: RUN_QUARANTINED: the model call \(turn 1\) was in flight on 3 workers that died \(POISON_ATTEMPTS_LIMIT is 3\)/,
      );
      expect(body.steps[0]).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/^RUN_QUARANTINED: /) });
      // Three attempts died with their workers; the fourth was refused before it reached the model.
      expect(attemptsOf(body.steps[0].model_calls)).toEqual([...died, [4, 'failed', expect.stringMatching(/^RUN_QUARANTINED: /)]]);
      expect(model.requests).toHaveLength(LIMIT);
      // Temporal's execution failed with the same code, not retried further.
      const handle = (await api.app.get(TemporalClient).get()).workflow.getHandle(`run-${run.uuid}`);
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'RUN_QUARANTINED' });

      // The worker that refused the call is alive and takes the next run.
      model.respondWith(null).script(reply.text('healthy'));
      const next = (
        await user.post(
          `/workflows/${(await user.post('/workflows', { name: `healthy-${randomUUID().slice(0, 6)}`, steps: [llmStep()] })).body.uuid}/runs`,
          { trigger_output: {} },
        )
      ).body;
      expect(await runEnd(user, next.uuid)).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: 'healthy' } }] });
      model.assertDone();
      // And the reconciler leaves the quarantined run alone: it is no longer running.
      expect((await user.get(`/runs/${run.uuid}`)).body.status).toBe('failed');
    },
  );

  it('is not started again by the reconciler when its execution is lost after its call killed the limit of workers', async () => {
    const { model, api } = fixture;
    model.reset();
    const user = await api.newUser();
    const tool = `poison_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', {
      name: tool,
      description: 'never answers',
      parameters: { type: 'object' },
      endpoint_url: tools.url('poison'),
    });
    const workflow = (
      await user.post('/workflows', {
        name: `poison-tool-${randomUUID().slice(0, 6)}`,
        steps: [agentStep({ name: 'caller', tools: [tool], retry_policy: MANY_RETRIES })],
      })
    ).body;
    model.script(reply.toolCalls([{ name: tool, arguments: { n: 1 } }]));
    const before = tools.calls.length;

    fixture.worker = await WorkerProcess.start(api.config);
    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;
    // The third worker dies too, and no fourth comes: the execution is then lost (a Temporal that lost its
    // state, an execution deleted) while the run's row still says running, which the reconciler restarts.
    await killWorkersInTurn((death) =>
      tools.waitUntil(
        () => tools.calls.length >= before + death,
        60_000,
        () => `tool call ${death}`,
      ),
    );
    const temporal = await api.app.get(TemporalClient).get();
    await temporal.workflowService.deleteWorkflowExecution({
      namespace: api.config.temporal.namespace,
      workflowExecution: { workflowId: `run-${run.uuid}` },
    });
    const gone = () =>
      temporal.workflow
        .getHandle(`run-${run.uuid}`)
        .describe()
        .then(
          () => false,
          (error: unknown) => error instanceof WorkflowNotFoundError,
        );
    for (const deadline = Date.now() + 30_000; !(await gone()) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await gone()).toBe(true);
    // Older than the reconciler's age, so that the pass reaches it without a pass at age 0 reaching other specs' fresh runs.
    await api.app.get(DataSource).query('UPDATE workflow_runs SET created_at = created_at - INTERVAL 2 MINUTE WHERE uuid = ?', [run.uuid]);

    await api.app.get(RunReconciler).pass(60);

    const body: RunBody = (await user.get(`/runs/${run.uuid}`)).body;
    expect(body.status).toBe('failed');
    expect(body.error_message).toMatch(/^RUN_QUARANTINED: a call of the run was in flight on 3 workers that died/);
    expect(await gone()).toBe(true); // never started again
    expect(tools.calls.length - before).toBe(LIMIT);
    // The attempts the dead workers left are closed with the run.
    expect(body.steps[0].tool_calls.map((call: AuditedCall) => call.status)).toEqual(['failed', 'failed', 'failed']);
    model.assertDone();
  });
});
