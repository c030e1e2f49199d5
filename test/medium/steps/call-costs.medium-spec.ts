// What a run costs: each call priced as it ends, the step's and the run's sums, and the user's usage report.
import { Metrics } from '@app/observability';
import { RunRepository, UsageRepository, type NewRun } from '@app/persistence';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { endRun } from '../runs/run-fixtures';
import { setUpStepServices } from './step-services.setup';

// Dollars per million tokens: 1,000 prompt tokens (400 cached) and 500 answer tokens cost 0.0054.
const PRICE = { input: 2, output: 8, cached_input: 0.5 };
const CALL_COST = (600 * 2 + 400 * 0.5 + 500 * 8) / 1e6;
const USAGE = { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 400 };

describe(`${LlmStepService.name}: costs`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices({ prices: { 'openai:priced-model': PRICE } });
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  /** A run of one LLM step per model, each step run as its activity would. */
  async function ranRun(userId: string, models: string[]): Promise<NewRun> {
    const steps = models.map((model) => llmStep({ model }));
    const run = newRun(userId, workflowDefinition(steps), { topic: 'tides' });
    await setup.runs.create(run);
    setup.model.script(...models.map(() => reply.text('ok', { usage: USAGE })));
    for (const [position, step] of steps.entries()) await setup.llm.run(stepContext(run, position), step, activityScope());
    await endRun(setup.runs, run.uuid, 'completed', null);
    return run;
  }

  const today = () => new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
  const usageToday = (userId: string) => setup.get(UsageRepository).report(userId, today(), new Date(today().getTime() + 86_400_000));

  const costs = (run: NewRun) =>
    setup.db.query('SELECT cached_tokens, cost FROM model_calls WHERE run_uuid = ?', [run.uuid]) as Promise<{ cost: string | null }[]>;

  it('prices each call, sums the step and the run, and reports the user usage by day, workflow and model', async () => {
    const userId = newUserId();
    const run = await ranRun(userId, ['priced-model', 'priced-model']);

    expect((await costs(run)).map((row) => [Number(row.cost)])).toEqual([[CALL_COST], [CALL_COST]]);
    const view = (await setup.get(RunRepository).find(userId, run.uuid))!;
    expect(view.steps.map((step) => step.cost)).toEqual([CALL_COST, CALL_COST]);
    expect(view.steps[0].model_calls[0]).toMatchObject({ cached_tokens: 400, cost: CALL_COST });
    expect(view.cost).toBeCloseTo(2 * CALL_COST, 12);

    const report = await usageToday(userId);
    const figures = { calls: 2, prompt_tokens: 2000, completion_tokens: 1000, cached_tokens: 800, total_tokens: 3000, unpriced_calls: 0 };
    expect(report.total).toEqual({ ...figures, cost: 2 * CALL_COST });
    expect(report.by_day).toEqual([{ day: today().toISOString().slice(0, 10), ...figures, cost: 2 * CALL_COST }]);
    expect(report.by_workflow).toEqual([
      { workflow_uuid: run.workflow_uuid, workflow_name: run.workflow_name, ...figures, cost: 2 * CALL_COST },
    ]);
    expect(report.by_model).toEqual([{ provider: 'openai', model: 'priced-model', ...figures, cost: 2 * CALL_COST }]);

    // The worker's counters, by provider, model and workflow (no user label unless METRICS_USER_LABEL is on).
    const counters = await setup.get(Metrics).registry.getMetricsAsJSON();
    const series = (name: string) =>
      counters.find((metric) => metric.name === name)!.values.filter((value) => value.labels.workflow === run.workflow_uuid);
    expect(series('stepwise_model_cost_usd_total')).toEqual([
      expect.objectContaining({
        value: expect.closeTo(2 * CALL_COST, 12),
        labels: expect.not.objectContaining({ user: expect.anything() }),
      }),
    ]);
    expect(series('stepwise_model_tokens_total').map((value) => [value.labels.kind, value.value])).toEqual([
      ['prompt', 2000],
      ['completion', 1000],
      ['cached', 800],
    ]);
  });

  it('gives a model without a price a null cost, and a run with such a call a null sum, never a partial one', async () => {
    const userId = newUserId();
    const run = await ranRun(userId, ['priced-model', 'unpriced-model']);

    const view = (await setup.get(RunRepository).find(userId, run.uuid))!;
    expect(view.steps.map((step) => step.cost)).toEqual([CALL_COST, null]);
    expect(view.cost).toBeNull();
    const report = await usageToday(userId);
    expect(report.total).toMatchObject({ calls: 2, cost: CALL_COST, unpriced_calls: 1 });
    expect(report.by_model).toEqual([
      expect.objectContaining({ model: 'priced-model', cost: CALL_COST, unpriced_calls: 0 }),
      expect.objectContaining({ model: 'unpriced-model', cost: 0, unpriced_calls: 1 }),
    ]);
  });
});
