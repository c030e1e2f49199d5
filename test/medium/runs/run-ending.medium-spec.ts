import { randomUUID } from 'node:crypto';
import { RunRepository, type WorkflowRepository } from '@app/persistence';
import { interruptedEnding, runEnding } from '@app/runs';
import type { Rows } from '../support/rows';
import { endRun, modelCall, toolCall, workflowWithRun } from './run-fixtures';
import { setUpRunRepository, type RunRepositories } from './run-repository.setup';

describe(`${RunRepository.name}: ending runs`, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let steps: RunRepositories['steps'];
  let audit: RunRepositories['audit'];
  let workflows: WorkflowRepository;
  let rows: Rows;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, steps, audit, workflows, rows } = setup);
  });
  afterAll(() => setup.close());

  it('ends a run once: its status, the steps not run skipped, its place given back, counted as successful', async () => {
    const { userId, workflowUuid, run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    await steps.startStep(run.steps[0].uuid, {});
    await steps.completeStep(run.steps[0].uuid, null);

    expect(await endRun(runs, run.uuid, 'completed', null)).toBe(true);
    expect(await endRun(runs, run.uuid, 'failed', 'too late')).toBe(false);

    expect(await rows.run(run.uuid)).toMatchObject({ status: 'completed', error_message: null, finished_at: expect.any(Date) });
    expect((await rows.step(run.steps[0].uuid)).status).toBe('completed');
    expect((await rows.step(run.steps[1].uuid)).status).toBe('skipped');
    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 1, successful_runs: 1, failed_runs: 0 });
    expect(await rows.runsInFlight(userId)).toBe(0);
  });

  it("ends a run with its last step's completion in one transaction, once, the step's call counted in the run's tokens", async () => {
    const { userId, workflowUuid, run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    const attempt = await steps.startStepWithCall(step, {}, { list: [], apart: false }, modelCall(run, step, { status: 'running' }));
    const output = { uuid: randomUUID(), run_uuid: run.uuid, user_id: userId, step_instance_uuid: step, raw_data: 'done' };
    const completion = {
      instance_uuid: step,
      output: { ...output, summary: 'done', markdown_representation: null, size_bytes: 4 },
      call: modelCall(run, step, { attempt: attempt! }),
    };

    expect(await steps.completeStepEndingRun(completion, runEnding(run.uuid, { status: 'completed', error_message: null }))).toBe(true);
    expect(await endRun(runs, run.uuid, 'failed', 'too late')).toBe(false);

    expect(await rows.step(step)).toMatchObject({ status: 'completed', output_id: output.uuid, total_tokens: 15 });
    expect(await rows.run(run.uuid)).toMatchObject({ status: 'completed', total_tokens: 15, finished_at: expect.any(Date) });
    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 1, successful_runs: 1, failed_runs: 0 });
    expect(await rows.runsInFlight(userId)).toBe(0);
  });

  it('sums the tokens of completed model calls only, and closes the calls still running as interrupted', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    const step = run.steps[0].uuid;
    await runs.create(run);
    await audit.recordModelCall(modelCall(run, step, { turn: 1, attempt: 1, status: 'failed', error_message: 'HTTP 500' }));
    await audit.recordModelCall(modelCall(run, step, { turn: 1, attempt: 2 }));
    await audit.recordModelCall(
      modelCall(run, step, { turn: 2, attempt: 1, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }),
    );
    await audit.recordModelCall(modelCall(run, step, { turn: 3, attempt: 1, status: 'running' }));
    await audit.recordToolCall(toolCall(run, step, { status: 'running' }));

    await endRun(runs, run.uuid, 'failed', 'step failed');

    expect(await rows.run(run.uuid)).toMatchObject({
      status: 'failed',
      error_message: 'step failed',
      prompt_tokens: 110,
      completion_tokens: 25,
      total_tokens: 135,
    });
    expect((await rows.modelCalls(step)).at(-1)).toMatchObject({
      turn: 3,
      status: 'failed',
      error_message: expect.stringMatching(/^Interrupted/),
    });
    expect(await rows.toolCalls(step)).toEqual([
      expect.objectContaining({ status: 'failed', error_message: expect.stringMatching(/^Interrupted/) }),
    ]);
  });

  it('counts failed and partial_success runs as failed, and a cancelled run as neither', async () => {
    const { workflowUuid, run, anotherRun } = await workflowWithRun(workflows);
    const [partial, cancelled] = [anotherRun(), anotherRun()];
    for (const each of [run, partial, cancelled]) await runs.create(each);

    await endRun(runs, run.uuid, 'failed', 'boom');
    await endRun(runs, partial.uuid, 'partial_success', 'one branch failed');
    await endRun(runs, cancelled.uuid, 'cancelled', null);

    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 3, successful_runs: 0, failed_runs: 2 });
  });

  it('keeps the counters exact when many runs end at once, each ended by two callers', async () => {
    const { userId, workflowUuid, anotherRun } = await workflowWithRun(workflows);
    const ending = Array.from({ length: 5 }, anotherRun);
    for (const each of ending) await runs.create(each);

    const ended = await Promise.all(
      ending.flatMap((each) => [endRun(runs, each.uuid, 'completed', null), endRun(runs, each.uuid, 'stopped', null)]),
    );

    expect(ended.filter(Boolean)).toHaveLength(5);
    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 5, successful_runs: 5, failed_runs: 0 });
    expect(await rows.runsInFlight(userId)).toBe(0);
  });

  it('ends a run its execution left unrecorded: the step it was in failed as interrupted, with its tokens, the rest skipped, once', async () => {
    const { userId, workflowUuid, run } = await workflowWithRun(workflows, 3);
    await runs.create(run);
    const [done, slow, next] = run.steps.map((step) => step.uuid);
    await steps.startStep(done, {});
    await steps.completeStep(done, null);
    await steps.startStep(slow, {});
    await audit.recordModelCall(modelCall(run, slow, { turn: 1 }));
    await audit.recordModelCall(modelCall(run, slow, { turn: 2, status: 'running' }));
    const end = { status: 'failed' as const, error_message: 'Terminated in Temporal: operator stopped it' };

    const ending = interruptedEnding((await runs.find(userId, run.uuid))!, end);
    expect(await runs.end(ending)).toBe(true);
    expect(await runs.end(ending)).toBe(false);

    expect(await rows.run(run.uuid)).toMatchObject({ ...end, total_tokens: 15, finished_at: expect.any(Date) });
    expect(await rows.step(done)).toMatchObject({ status: 'completed', error_message: null });
    expect(await rows.step(slow)).toMatchObject({
      status: 'failed',
      error_message: 'Interrupted: Terminated in Temporal: operator stopped it',
      total_tokens: 15,
      finished_at: expect.any(Date),
    });
    expect(await rows.step(next)).toMatchObject({ status: 'skipped', error_message: null });
    expect((await rows.modelCalls(slow)).map((call) => call.status)).toEqual(['completed', 'failed']);
    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 1, successful_runs: 0, failed_runs: 1 });
    expect(await rows.runsInFlight(userId)).toBe(0);
  });

  it('offers the reconciler every run in flight, waiting and scheduled ones included, and none that ended', async () => {
    const { run, anotherRun } = await workflowWithRun(workflows, 1);
    const [waiting, ended] = [anotherRun(), anotherRun()];
    for (const each of [{ ...run, temporal_workflow_id: `scheduled-medium-${run.uuid}` }, waiting, ended]) await runs.create(each);
    await steps.awaitInput(waiting.uuid, waiting.steps[0].uuid, { prompt: 'go on?' });
    await endRun(runs, ended.uuid, 'completed', null);

    const offered = new Map<string, string>();
    for (let page = await runs.staleInFlight(0, 500); page.length; page = await runs.staleInFlight(0, 500, page.at(-1)))
      for (const each of page) offered.set(each.uuid, each.temporal_workflow_id);

    expect([offered.get(run.uuid), offered.get(waiting.uuid), offered.has(ended.uuid)]).toEqual([
      `scheduled-medium-${run.uuid}`,
      waiting.temporal_workflow_id,
      false,
    ]);
  });
});
