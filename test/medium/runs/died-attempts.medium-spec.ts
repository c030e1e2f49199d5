// What decides a run's quarantine: the attempts of one call that died in flight with their worker, counted
// from the call audit (left running, or closed as lost by the attempt after them), never those that failed
// on their own.
import { CallAuditRepository, type NewRun, type WorkflowRepository } from '@app/persistence';
import { modelCall, toolCall, workflowWithRun } from './run-fixtures';
import { setUpRunRepository, type RunRepositories } from './run-repository.setup';

describe(`${CallAuditRepository.name}: attempts that died with their worker`, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let audit: RunRepositories['audit'];
  let workflows: WorkflowRepository;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, audit, workflows } = setup);
  });
  afterAll(() => setup.close());

  async function recordedRun(): Promise<{ run: NewRun; step: string }> {
    const { run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    return { run, step: run.steps[0].uuid };
  }

  /** A local activity run again after its worker died: Temporal's count restarts at 1, the row takes the next number. */
  const rerun = (run: NewRun, step: string, turn = 1) =>
    audit.recordModelCall(modelCall(run, step, { turn, attempt: 1, status: 'running' }));

  it('counts the attempts of a model call that died in flight before the one asking, and none that failed on their own', async () => {
    const { run, step } = await recordedRun();
    await audit.recordModelCall(modelCall(run, step, { attempt: 1, status: 'running' })); // its worker died
    await audit.recordModelCall(modelCall(run, step, { attempt: 2, status: 'running' })); // closes 1 as lost
    await audit.recordModelCall(modelCall(run, step, { attempt: 2, status: 'failed', error_message: 'HTTP 500' })); // failed on its own
    await audit.recordModelCall(modelCall(run, step, { attempt: 3, status: 'running' })); // its worker died too
    const fourth = await rerun(run, step);

    expect(fourth).toBe(4);
    expect(await audit.diedModelAttempts(step, 1, fourth)).toBe(2);
    // Only attempts before the one asking, and only this call's.
    expect(await audit.diedModelAttempts(step, 1, 3)).toBe(1);
    expect(await audit.diedModelAttempts(step, 2, fourth)).toBe(0);
    expect(await audit.diedModelAttempts(run.steps[1].uuid, 1, fourth)).toBe(0);
  });

  it('counts a local activity run again on three dead workers as three, the attempt left running included', async () => {
    const { run, step } = await recordedRun();
    const attempts = [await rerun(run, step), await rerun(run, step), await rerun(run, step)];
    // The third, left running (no attempt after it closed it): what the reconciler finds when the run's execution is gone.
    expect(await audit.mostDiedAttempts(run.uuid)).toBe(3);
    const fourth = await rerun(run, step);

    expect([...attempts, fourth]).toEqual([1, 2, 3, 4]);
    expect(await audit.diedModelAttempts(step, 1, fourth)).toBe(3);
  });

  it('counts a tool call like a model call, by its id', async () => {
    const { run, step } = await recordedRun();
    await audit.recordToolCall(toolCall(run, step, { attempt: 1 }));
    await audit.recordToolCall(toolCall(run, step, { attempt: 2 }));
    await audit.recordToolCall(
      toolCall(run, step, { attempt: 2, status: 'completed', output: { ok: true }, finished_at: new Date(), duration_ms: 3 }),
    );

    expect(await audit.diedToolAttempts(step, 'call_medium', 3)).toBe(1);
    expect(await audit.diedToolAttempts(step, 'call_other', 3)).toBe(0);
  });

  it("reads a run's most-died call across its model and tool calls, 0 for a run none of whose workers died", async () => {
    const { run, step } = await recordedRun();
    expect(await audit.mostDiedAttempts(run.uuid)).toBe(0);
    await audit.recordModelCall(modelCall(run, step, { turn: 1, attempt: 1, status: 'completed' }));
    await rerun(run, step, 2);
    await rerun(run, step, 2);
    for (const attempt of [1, 2, 3]) await audit.recordToolCall(toolCall(run, run.steps[1].uuid, { attempt }));
    await audit.recordToolCall(
      toolCall(run, run.steps[1].uuid, {
        attempt: 3,
        status: 'failed',
        error_message: 'timed out',
        finished_at: new Date(),
        duration_ms: 3,
      }),
    );

    // Turn 2: one attempt lost, one still running (2). The tool call: attempts 1 and 2 lost, 3 failed on its own (2).
    expect(await audit.mostDiedAttempts(run.uuid)).toBe(2);
    await rerun(run, step, 2);
    expect(await audit.mostDiedAttempts(run.uuid)).toBe(3);
  });
});
