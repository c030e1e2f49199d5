// What a run costs, over HTTP: the run's cost is the sum of its calls at the configured prices, GET /usage
// says the same, a run pauses at its budget in dollars until approved, and a user whose day is spent
// starts nothing more (429 SPEND_LIMIT_REACHED, with when it resets).
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

// $2 and $8 per million tokens (cached input $0.5): 1,000 prompt tokens (400 cached) and 500 answer tokens cost $0.0054.
const PRICE = { input: 2, output: 8, cached_input: 0.5 };
const USAGE = { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 400 };
const CALL_COST = (600 * 2 + 400 * 0.5 + 500 * 8) / 1e6;
const priced = (name: string) => llmStep({ name, model: 'priced-model', max_tokens: 1000 });

describe('Costs', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { prices: new Map([['openai:priced-model', PRICE]]) });

  const answers = (count: number) => Array.from({ length: count }, () => reply.text('ok', { usage: USAGE }));

  it("shows a run's cost as the sum of its calls at the configured prices, as GET /usage does", async () => {
    const user = await stack.api.newUser();
    const workflow = (await user.post('/workflows', { name: 'priced', steps: [priced('one'), priced('two')] })).body;
    stack.model.script(...answers(2));

    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;
    const done = await stack.waitForRun(run.uuid, undefined, undefined, user);

    expect(done).toMatchObject({ status: 'completed', cost: 2 * CALL_COST });
    expect(done.steps.map((step) => step.cost)).toEqual([CALL_COST, CALL_COST]);
    expect(done.steps[0].model_calls[0]).toMatchObject({ cached_tokens: 400, cost: CALL_COST });
    const usage = await user.get('/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.total).toMatchObject({ calls: 2, cost: 2 * CALL_COST, cached_tokens: 800, unpriced_calls: 0 });
    expect(usage.body.by_workflow).toEqual([expect.objectContaining({ workflow_uuid: workflow.uuid, cost: 2 * CALL_COST })]);
    expect(await user.get('/usage?from=2026-01-01&to=2026-12-31')).toMatchObject({
      status: 400,
      body: { code: 'USAGE_RANGE_TOO_LONG', details: { field: 'from', max_days: 92 } },
    });
  });

  it('pauses a run at max_cost and lets it go on once approved with a higher one', async () => {
    const workflow = await stack.createWorkflow([priced('first'), priced('second')]);
    stack.model.script(...answers(2));
    const run = (await stack.user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {}, budget: { max_cost: CALL_COST / 2 } }))
      .body;

    const paused = await stack.waitForRun(run.uuid, (view) => typeof view.budget?.paused_at_cost === 'number');
    expect(paused).toMatchObject({ status: 'awaiting_input', budget: { max_cost: CALL_COST / 2, paused_at_cost: CALL_COST } });
    expect(stack.model.requests).toHaveLength(1);
    expect(await stack.user.post(`/runs/${run.uuid}/approve-budget`, { max_cost: CALL_COST / 4 })).toMatchObject({ status: 409 });
    expect(await stack.user.post(`/runs/${run.uuid}/approve-budget`, { max_cost: 1 })).toMatchObject({
      status: 200,
      body: { max_cost: 1 },
    });

    expect(await stack.waitForRun(run.uuid)).toMatchObject({
      status: 'completed',
      cost: 2 * CALL_COST,
      budget: { max_cost: 1, paused_at_cost: null },
    });
  });

  it("gives a run the workflow's budget when its start names none", async () => {
    const workflow = await stack.createWorkflow([priced('first'), priced('second')], { budget: { max_cost: CALL_COST / 2 } });
    expect(workflow).toMatchObject({ budget: { max_cost: CALL_COST / 2 } });
    stack.model.script(...answers(1));

    const run = await stack.startRun(workflow.uuid, {});
    const paused = await stack.waitForRun(run.uuid, (view) => typeof view.budget?.paused_at_cost === 'number');

    expect(paused).toMatchObject({ status: 'awaiting_input', budget: { max_cost: CALL_COST / 2, paused_at_cost: CALL_COST } });
    await stack.user.post(`/runs/${run.uuid}/cancel`);
    expect((await stack.waitForRun(run.uuid)).status).toBe('cancelled');
  });

  it("refuses the next start once the user's day is spent, with its code and when it resets", async () => {
    const user = await stack.api.newUser();
    const workflow = (await user.post('/workflows', { name: 'spender', steps: [priced('only')] })).body;
    stack.model.script(...answers(1));
    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;
    await stack.waitForRun(run.uuid, undefined, undefined, user);

    const limits = await user.put('/usage/limits', { daily_usd: CALL_COST, monthly_usd: null });
    expect(limits).toMatchObject({
      status: 200,
      body: { own: { daily_usd: CALL_COST }, applied: { daily_usd: CALL_COST }, today: { spent: CALL_COST } },
    });
    const refused = await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} });

    expect(refused).toMatchObject({ status: 429, body: { code: 'SPEND_LIMIT_REACHED', details: { period: 'day', limit: CALL_COST } } });
    expect(new Date(refused.body.details.resets_at).getUTCHours()).toBe(0);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user's day is their own.
    stack.model.script(...answers(1));
    expect((await stack.runSteps([priced('elsewhere')])).status).toBe('completed');
  });

  it("shows a run that crosses its user's day mid-run paused with the reason; its next call waits for the reset", async () => {
    const user = await stack.api.newUser();
    // Room for the first call's worst case (about $0.008), not for a second beside the first one's $0.0054.
    await user.put('/usage/limits', { daily_usd: 0.01, monthly_usd: null });
    const workflow = (await user.post('/workflows', { name: 'crosser', steps: [priced('first'), priced('second')] })).body;
    stack.model.script(...answers(1));
    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;

    const paused = await stack.waitForRun(run.uuid, (view) => view.spend_pause != null, undefined, user);

    expect(paused).toMatchObject({
      status: 'awaiting_input',
      spend_pause: { code: 'SPEND_LIMIT_REACHED', period: 'day', limit: 0.01, spent: CALL_COST },
    });
    const now = new Date();
    expect(paused.spend_pause!.resets_at).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
    );
    expect(paused.steps.map((step) => step.status)).toEqual(['completed', 'running']);
    expect(stack.model.requests).toHaveLength(1);
    // It would go on by itself at the reset; cancelled here, it no longer shows the pause.
    await user.post(`/runs/${run.uuid}/cancel`);
    expect(await stack.waitForRun(run.uuid, undefined, undefined, user)).toMatchObject({ status: 'cancelled', spend_pause: null });
  });

  it("lets a run paused on its user's spent day go on once the user raises their limit, not at the reset", async () => {
    const user = await stack.api.newUser();
    await user.put('/usage/limits', { daily_usd: 0.01, monthly_usd: null });
    const workflow = (await user.post('/workflows', { name: 'raiser', steps: [priced('first'), priced('second')] })).body;
    stack.model.script(...answers(1));
    const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body;
    await stack.waitForRun(run.uuid, (view) => view.spend_pause != null, undefined, user);

    // The same limit again: the run tries its call at once, finds no room and stays paused (a second refused attempt).
    await user.put('/usage/limits', { daily_usd: 0.01, monthly_usd: null });
    const stillPaused = await stack.waitForRun(run.uuid, (view) => view.steps[1]?.model_calls.length === 2, undefined, user);
    expect(stillPaused).toMatchObject({ status: 'awaiting_input', spend_pause: { limit: 0.01 } });
    expect(stack.model.requests).toHaveLength(1);

    // Raised: it goes on now and completes.
    stack.model.script(...answers(1));
    expect(await user.put('/usage/limits', { daily_usd: 1, monthly_usd: null })).toMatchObject({ status: 200 });
    const done = await stack.waitForRun(run.uuid, undefined, undefined, user);

    expect(done).toMatchObject({ status: 'completed', spend_pause: null, cost: 2 * CALL_COST });
    expect(done.steps[1].model_calls.map((call) => call.status)).toEqual(['failed', 'failed', 'completed']);
    expect(stack.model.requests).toHaveLength(2);
  });

  it("answers a cached step's identical call from the same user's earlier run, never from another user's", async () => {
    // Step uuids are the user's own: each workflow gets fresh ones, the same prompt.
    const steps = () => [llmStep({ name: 'cached', model: 'priced-model', cache: { ttl_seconds: 300 } })];
    const [owner, other] = [await stack.api.newUser(), await stack.api.newUser()];
    const runTwice = async (user: typeof owner) => {
      const workflow = (await user.post('/workflows', { name: 'cached', steps: steps() })).body;
      const runs = [];
      for (const _ of [1, 2]) {
        const run = (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { topic: 'tides' } })).body;
        runs.push(await stack.waitForRun(run.uuid, undefined, undefined, user));
      }
      return runs;
    };
    stack.model.script(...answers(2));

    const [first, second] = await runTwice(owner);
    const [elsewhere] = await runTwice(other);

    expect(stack.model.requests).toHaveLength(2);
    expect(first).toMatchObject({ status: 'completed', cost: CALL_COST });
    expect(second).toMatchObject({ status: 'completed', cost: 0, tokens: { total: 0 } });
    expect(second.steps[0].model_calls[0].cached_from).toBe(first.steps[0].model_calls[0].uuid);
    expect(elsewhere.steps[0].model_calls[0]).toMatchObject({ cached_from: null, cost: CALL_COST });
  });
});
