// A deploy stops the worker with SIGTERM while a model call is in flight: the worker stops taking work
// but lets the call finish (WORKER_SHUTDOWN_GRACE_SECONDS) and records it, so the next worker goes on
// from there without asking the model again.
import { runEnd } from './support/agent-run';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useWorkerProcessStack, WorkerProcess } from './support/worker-process';

describe('A worker stopped with SIGTERM mid model call', () => {
  const fixture = useWorkerProcessStack();

  it('lets the call finish and record its answer, and the next worker completes the run without asking again', async () => {
    const { model, api } = fixture;
    const user = await api.newUser();
    const first = llmStep({ name: 'slow' });
    const second = llmStep({ name: 'after' });
    const workflow = (await user.post('/workflows', { name: 'deploy', steps: [first, second] })).body;
    model.script(reply.text('slow answer', { delayMs: 3000 }), reply.text('second answer'));

    fixture.worker = await WorkerProcess.start(api.config);
    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { text: 'x' } })).body;
    for (const deadline = Date.now() + 30_000; model.requests.length === 0 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(model.requests).toHaveLength(1);

    const stopping = Date.now();
    await fixture.worker.stop();
    const stoppedAfterMs = Date.now() - stopping;
    const afterStop = (await user.get(`/runs/${run.uuid}`)).body;
    // The answer arrived after the signal and was stored before the process exited.
    expect(afterStop.steps[0]).toMatchObject({ status: 'completed', output: { raw_data: 'slow answer' } });
    expect(afterStop.steps[0].model_calls).toEqual([expect.objectContaining({ status: 'completed', attempt: 1 })]);
    expect(stoppedAfterMs).toBeGreaterThan(1000);

    fixture.worker = await WorkerProcess.start(api.config);
    const body = await runEnd(user, run.uuid);
    expect(body.status).toBe('completed');
    expect(body.steps.map((step: { output: { raw_data: unknown } }) => step.output.raw_data)).toEqual(['slow answer', 'second answer']);
    expect(model.requests).toHaveLength(2);
    model.assertDone();
  });
});
