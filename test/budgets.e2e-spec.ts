// A run with a token budget: when its model calls reach it, the run waits (awaiting_input, the tokens used
// on it) for an approval with a higher limit, or a cancel. Kept by the workflow, so it survives restarts.
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('Token budgets', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const spend = (text: string) => reply.text(text, { usage: { prompt_tokens: 20, completion_tokens: 10 } });
  const startWithBudget = async (workflowUuid: string, max_tokens: number) =>
    (await stack.user.post(`/workflows/${workflowUuid}/runs`, { trigger_output: {}, budget: { max_tokens } })).body;
  const pausedOn = (runUuid: string) =>
    stack.waitForRun(runUuid, (run) => run.budget?.paused_at_tokens !== null && run.budget?.paused_at_tokens !== undefined);

  it('pauses a run at its budget and lets it go on once approved with a higher limit', async () => {
    const workflow = await stack.createWorkflow([llmStep({ name: 'first' }), llmStep({ name: 'second' })]);
    stack.model.script(spend('one'), spend('two'));
    const run = await startWithBudget(workflow.uuid, 25);
    expect(run.budget).toEqual({ max_tokens: 25, paused_at_tokens: null });

    const paused = await pausedOn(run.uuid);
    expect(paused).toMatchObject({ status: 'awaiting_input', budget: { max_tokens: 25, paused_at_tokens: 30 } });
    expect(paused.steps.map((step: { status: string }) => step.status)).toEqual(['completed', 'pending']);
    expect(stack.model.requests).toHaveLength(1);

    expect(await stack.user.post(`/runs/${run.uuid}/approve-budget`, { max_tokens: 30 })).toMatchObject({
      status: 409,
      body: { code: 'RUN_NOT_ACTIVE' },
    });
    expect(await stack.user.post(`/runs/${run.uuid}/approve-budget`, { max_tokens: 100 })).toMatchObject({
      status: 200,
      body: { run_uuid: run.uuid, max_tokens: 100 },
    });
    const done = await stack.waitForRun(run.uuid);
    expect(done).toMatchObject({ status: 'completed', budget: { max_tokens: 100, paused_at_tokens: null }, tokens: { total: 60 } });
    expect(await stack.user.post(`/runs/${run.uuid}/approve-budget`, { max_tokens: 200 })).toMatchObject({ status: 409 });
  });

  it('ends a paused run with a cancel, and refuses a malformed budget', async () => {
    const workflow = await stack.createWorkflow([llmStep(), llmStep()]);
    stack.model.script(spend('one'));
    const run = await startWithBudget(workflow.uuid, 5);
    await pausedOn(run.uuid);
    await stack.user.post(`/runs/${run.uuid}/cancel`);
    expect((await stack.waitForRun(run.uuid)).status).toBe('cancelled');
    expect(await stack.user.post(`/workflows/${workflow.uuid}/runs`, { budget: { max_tokens: 0 } })).toMatchObject({
      status: 422,
      body: { details: { field: 'budget.max_tokens' } },
    });
  });
});
