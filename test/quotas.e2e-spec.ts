// Quotas an operator sets so one user cannot take the shared workers: requests per API key, runs in
// flight per user (exact under concurrent starts), how often a schedule fires and how far back it fills.
import { randomUUID } from 'node:crypto';
import { runEnd } from './support/agent-run';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('Request rate per API key', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { quotas: { requestsPerMinute: 60, requestBurst: 5 } });

  it('answers 429 with Retry-After past the burst, leaving other keys alone', async () => {
    const [busy, other] = [await stack.api.newUser(), await stack.api.newUser()];
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await busy.get('/workflows'));
    expect(answers.slice(0, 5).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[5]).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
    expect(Number(answers[5].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await other.get('/workflows')).status).toBe(200);
  });
});

describe('Models and max_tokens', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { models: { allowed: ['test-model'], defaultMaxTokens: 256, maxMaxTokens: 1000 } });

  it('refuses a model outside MODELS_ALLOWED and max_tokens over the maximum, and sends a ceiling on every call', async () => {
    const named = async (step: object, field: string, code: string) =>
      expect(await stack.user.post('/workflows', { name: `wf-${randomUUID().slice(0, 6)}`, steps: [step] })).toMatchObject({
        status: 422,
        body: { code, details: { field } },
      });
    await named(llmStep({ model: 'gpt-9' }), 'steps[0].model', 'MODEL_NOT_ALLOWED');
    await named(llmStep({ max_tokens: 5000 }), 'steps[0].max_tokens', 'VALIDATION_FAILED');

    stack.model.script(reply.text('short'), reply.text('shorter'));
    const run = await stack.runSteps([llmStep(), llmStep({ max_tokens: 100 })]);
    expect(run.status).toBe('completed');
    expect(stack.model.requests.map((request) => request.body.max_tokens)).toEqual([256, 100]);
  });
});

describe('Runs in flight and schedules', () => {
  let stack: Stack;
  useStack((started) => (stack = started), {
    quotas: { maxRunsInFlightPerUser: 10, scheduleMinIntervalSeconds: 60, backfillMaxSpanSeconds: 86_400 },
  });

  // What each refused start writes (nothing) and how the place is counted: test/medium/runs/run-creation.medium-spec.ts.
  it('admits exactly the limit out of 50 concurrent starts, lists no run for the others, and frees a place when a run ends', async () => {
    const user = await stack.api.newUser();
    const workflow = (
      await user.post('/workflows', { name: 'waits', steps: [{ uuid: randomUUID(), type: 'human_input', name: 'wait', prompt: 'Go on?' }] })
    ).body;
    const starts = await Promise.all(Array.from({ length: 50 }, () => user.post(`/workflows/${workflow.uuid}/runs`, {})));
    const admitted = starts.filter((start) => start.status === 201);
    const refused = starts.filter((start) => start.status === 429);
    expect([admitted.length, refused.length]).toEqual([10, 40]);
    expect(refused.every((start) => start.body.code === 'TOO_MANY_RUNS_IN_FLIGHT')).toBe(true);
    expect((await user.get(`/runs?workflow_uuid=${workflow.uuid}`)).body.total).toBe(10);
    expect((await user.get(`/workflows/${workflow.uuid}`)).body.total_runs).toBe(10);

    await user.post(`/runs/${admitted[0].body.uuid}/cancel`);
    expect((await runEnd(user, admitted[0].body.uuid)).status).toBe('cancelled');
    const again = await user.post(`/workflows/${workflow.uuid}/runs`, {});
    expect(again.status).toBe(201);
    expect((await user.post(`/workflows/${workflow.uuid}/runs`, {})).status).toBe(429);
    await Promise.all([...admitted.slice(1), again].map((start) => user.post(`/runs/${start.body.uuid}/cancel`)));
  });

  it('refuses schedules that fire more often than the floor, and backfills over the span', async () => {
    const workflow = await stack.createWorkflow([llmStep()]);
    const refuse = async (body: object, field: string) =>
      expect(await stack.user.post(`/workflows/${workflow.uuid}/schedules`, { schedule_type: 'recurring', ...body })).toMatchObject({
        status: 422,
        body: { details: { field } },
      });
    await refuse({ interval_seconds: 30 }, 'interval_seconds');
    await refuse({ cron_expression: '*/5 * * * * *' }, 'cron_expression');
    const hourly = await stack.user.post(`/workflows/${workflow.uuid}/schedules`, {
      schedule_type: 'recurring',
      cron_expression: '0 * * * *',
    });
    expect(hourly.status).toBe(201);
    expect(await stack.user.patch(`/schedules/${hourly.body.id}`, { interval_seconds: 10 })).toMatchObject({
      status: 422,
      body: { details: { field: 'interval_seconds' } },
    });
    const now = Date.now();
    const backfill = await stack.user.post(`/schedules/${hourly.body.id}/backfill`, {
      start: new Date(now - 3 * 86_400_000).toISOString(),
      end: new Date(now).toISOString(),
    });
    expect(backfill).toMatchObject({ status: 422, body: { details: { field: 'end' } } });
    await stack.user.delete(`/schedules/${hourly.body.id}`);
  });
});
