import { DomainError, ErrorCode } from '@app/domain';
import { RunRepository, type WorkflowRepository } from '@app/persistence';
import type { Rows } from '../support/rows';
import { endRun, workflowWithRun } from './run-fixtures';
import { RUNS_IN_FLIGHT_LIMIT, setUpRunRepository, type RunRepositories } from './run-repository.setup';

describe(`${RunRepository.name}: starting runs`, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let outputs: RunRepositories['outputs'];
  let workflows: WorkflowRepository;
  let rows: Rows;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, outputs, workflows, rows } = setup);
  });
  afterAll(() => setup.close());

  it('records a run with its trigger data and a pending row per step, counted once on its workflow', async () => {
    const { userId, workflowUuid, run } = await workflowWithRun(workflows, 3);

    expect(await runs.create(run)).toBe(true);
    expect(await runs.create(run)).toBe(false); // a repeated delivery finds the run

    expect(await runs.findRun(userId, run.uuid)).toMatchObject({
      status: 'running',
      workflow_uuid: workflowUuid,
      trigger_output_id: expect.any(String),
    });
    expect(await outputs.findOutput(userId, (run.trigger_output as { uuid: string }).uuid)).toMatchObject({
      raw_data: { topic: 'medium' },
      step_instance_uuid: null,
    });
    for (const step of run.steps) expect(await rows.step(step.uuid)).toMatchObject({ status: 'pending', attempts: 0, output_id: null });
    expect(await rows.counters(workflowUuid)).toEqual({ total_runs: 1, successful_runs: 0, failed_runs: 0 });
    expect(await rows.runsInFlight(userId)).toBe(1);
  });

  it('answers a start with the run as written, which is the run as read back', async () => {
    const { userId, run } = await workflowWithRun(workflows, 3);

    const { created, written } = await runs.start({ ...run, budget: { max_tokens: 500 } });
    expect(created).toBe(true);

    expect(written).toEqual(await runs.find(userId, run.uuid));
    expect(await runs.start(run)).toEqual({ created: false, written: null });
  });

  it(`refuses the run past ${RUNS_IN_FLIGHT_LIMIT} in flight with TOO_MANY_RUNS_IN_FLIGHT, writing nothing`, async () => {
    const { userId, workflowUuid, run, anotherRun } = await workflowWithRun(workflows);
    for (let i = 0; i < RUNS_IN_FLIGHT_LIMIT; i++) await runs.create(anotherRun());

    const refused = runs.create(run);

    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.TooManyRunsInFlight, details: { limit: RUNS_IN_FLIGHT_LIMIT } });
    expect(await runs.findRun(userId, run.uuid)).toBeNull();
    expect(await rows.count('workflow_runs', userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
    expect(await rows.count('step_outputs', userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
    expect(await rows.count('workflow_step_instances', userId)).toBe(RUNS_IN_FLIGHT_LIMIT * 2);
    expect(await rows.counters(workflowUuid)).toMatchObject({ total_runs: RUNS_IN_FLIGHT_LIMIT });
    expect(await rows.runsInFlight(userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
  });

  it('lets exactly the quota in when one user starts 20 runs at once, the others refused cleanly', async () => {
    const { userId, workflowUuid, anotherRun } = await workflowWithRun(workflows);

    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => runs.create(anotherRun())));

    const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as DomainError).code] : []));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value === true)).toHaveLength(RUNS_IN_FLIGHT_LIMIT);
    expect(refusals).toEqual(Array(20 - RUNS_IN_FLIGHT_LIMIT).fill(ErrorCode.TooManyRunsInFlight));
    expect(await rows.count('workflow_runs', userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
    expect(await rows.runsInFlight(userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
    expect(await rows.counters(workflowUuid)).toMatchObject({ total_runs: RUNS_IN_FLIGHT_LIMIT });
  });

  it('gives the place back when a run ends, so the next start goes in', async () => {
    const { userId, run, anotherRun } = await workflowWithRun(workflows);
    const started = Array.from({ length: RUNS_IN_FLIGHT_LIMIT }, anotherRun);
    for (const each of started) await runs.create(each);

    expect(await endRun(runs, started[0].uuid, 'completed', null)).toBe(true);

    expect(await runs.create(run)).toBe(true);
    expect(await rows.runsInFlight(userId)).toBe(RUNS_IN_FLIGHT_LIMIT);
  });
});
