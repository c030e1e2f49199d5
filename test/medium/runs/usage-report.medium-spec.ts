// A user's usage report reads the calls of its range by (user_id, started_at), whatever the user's calls before
// or after it: each call names its run's user (a trigger fills it from the run), and each statement's plan
// reads a range of that index.
import { DataSource } from 'typeorm';
import { UsageRepository, usageStatements, type NewRun, type WorkflowRepository } from '@app/persistence';
import { modelCall, workflowWithRun } from './run-fixtures';
import { setUpRunRepository, type RunRepositories } from './run-repository.setup';

const day = (iso: string) => new Date(`${iso}T12:00:00Z`);
const MARCH = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') };

describe(`${UsageRepository.name}: a range's calls by index`, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let audit: RunRepositories['audit'];
  let workflows: WorkflowRepository;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, audit, workflows } = setup);
  });
  afterAll(() => setup.close());

  async function recordedRun(): Promise<{ run: NewRun; userId: string }> {
    const { run, userId } = await workflowWithRun(workflows, 3);
    await runs.create(run);
    return { run, userId };
  }

  it("reports the calls that started in the range, of the user's runs only", async () => {
    const { run, userId } = await recordedRun();
    const other = await recordedRun();
    await audit.recordModelCall(modelCall(run, run.steps[0].uuid, { started_at: day('2026-02-28') }));
    await audit.recordModelCall(modelCall(run, run.steps[1].uuid, { started_at: day('2026-03-10'), cost: 0.25 }));
    await audit.recordModelCall(modelCall(run, run.steps[2].uuid, { started_at: day('2026-04-01') }));
    await audit.recordModelCall(modelCall(other.run, other.run.steps[0].uuid, { started_at: day('2026-03-10') }));

    const report = await setup.get(UsageRepository).report(userId, MARCH.from, MARCH.to);

    expect(report.total).toMatchObject({ calls: 1, total_tokens: 15, cost: 0.25 });
    expect(report.by_day).toEqual([expect.objectContaining({ day: '2026-03-10', calls: 1 })]);
    expect(report.by_workflow).toEqual([expect.objectContaining({ workflow_uuid: run.workflow_uuid, calls: 1, cost: 0.25 })]);
    expect(report.by_model).toEqual([expect.objectContaining({ provider: 'openai', model: 'test-model', calls: 1 })]);
    const owners = (await setup.get(DataSource).query('SELECT DISTINCT user_id FROM model_calls WHERE run_uuid = ?', [run.uuid])) as {
      user_id: string;
    }[];
    expect(owners).toEqual([{ user_id: userId }]);
  });

  it.each(Object.entries(usageStatements()))('reads %s through a range of (user_id, started_at)', async (_name, statement) => {
    const { userId } = await recordedRun();

    const plan = (await setup.get(DataSource).query(`EXPLAIN ${statement}`, [userId, MARCH.from, MARCH.to])) as {
      table: string;
      type: string;
      key: string | null;
    }[];

    expect(plan.find((row) => row.table === 'm')).toMatchObject({ type: 'range', key: 'idx_model_calls_user_started' });
    // A run is read by its key for its workflow's name, never the user's runs one by one.
    for (const row of plan.filter((row) => row.table === 'r')) expect(row).toMatchObject({ type: 'eq_ref', key: 'PRIMARY' });
  });
});
