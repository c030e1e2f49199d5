// Partial success, resume from a step and idempotent starts, end to end on real Temporal and MySQL.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { llmStep } from './support/factories';

describe('Resume and partial success', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  /** Four steps; the third reads the first's output, and is retried once before failing for good. */
  async function fourSteps() {
    const collect = llmStep({ name: 'collect', system_prompt: 'Collect <<trigger_output.topic>>' });
    const steps = [
      collect,
      llmStep({ name: 'clean', system_prompt: 'Clean $previous_output' }),
      llmStep({
        name: 'analyse',
        model: 'broken-model',
        system_prompt: `Analyse <<step_output.${collect.uuid}>>`,
        retry_policy: { max_attempts: 2, initial_interval_seconds: 1 },
      }),
      llmStep({ name: 'report', system_prompt: 'Report on $previous_output' }),
    ];
    return { steps, wf: await stack.createWorkflow(steps) };
  }

  async function failAtStepThree() {
    const { steps, wf } = await fourSteps();
    stack.model.script(reply.json({ items: ['a', 'b'] }), reply.text('cleaned list'), reply.error(500), reply.error(503));
    const started = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: { topic: 'prices' } });
    expect(started.status).toBe(201);
    const run = await stack.waitForRun(started.body.uuid);
    return { steps, wf, run };
  }

  const statuses = (run: RunBody) => run.steps.map((step: RunBody) => step.status);

  it('ends partial_success when a step fails after earlier ones completed, and resumes from it with the fixed definition', async () => {
    const { steps, wf, run } = await failAtStepThree();
    expect(run).toMatchObject({ status: 'partial_success', error_message: expect.stringContaining('Step "analyse" failed') });
    expect(statuses(run)).toEqual(['completed', 'completed', 'failed', 'skipped']);
    expect(run.steps[2].attempts).toBe(2); // its retry_policy's max_attempts
    const kept = await stack.user.get(`/outputs/${run.steps[0].output!.uuid}`);
    expect(kept.body.raw_data).toEqual({ items: ['a', 'b'] });
    expect((await stack.user.get(`/workflows/${wf.uuid}`)).body).toMatchObject({ total_runs: 1, failed_runs: 1, successful_runs: 0 });

    // The fix: step 3 gets a model that works. The resume runs only steps 3 and 4.
    expect((await stack.user.call('PATCH', `/steps/${steps[2].uuid}`, { model: 'fixed-model' })).status).toBe(200);
    stack.model.reset();
    stack.model.script(reply.json({ trend: 'up' }), reply.text('prices are going up'));
    const resumed = await stack.user.post(`/runs/${run.uuid}/resume`, { from_step_uuid: steps[2].uuid, definition: 'current' });
    expect(resumed.status).toBe(201);
    expect(resumed.body).toMatchObject({ parent_run_uuid: run.uuid, resumed_from_step_uuid: steps[2].uuid });
    const child = await stack.waitForRun(resumed.body.uuid);

    expect(child.status).toBe('completed');
    expect(statuses(child)).toEqual(['completed', 'completed', 'completed', 'completed']);
    // Steps 1 and 2 were carried over: no model request, the parent's outputs referenced, not copied.
    expect(stack.model.requests.map((request) => request.body.model)).toEqual(['fixed-model', 'test-model']);
    expect(child.steps.map((step: RunBody) => step.carried_from_run_uuid)).toEqual([run.uuid, run.uuid, null, null]);
    expect(child.steps[0].output!.uuid).toBe(run.steps[0].output!.uuid);
    expect(child.steps[0].model_calls).toEqual([]);
    expect(child.trigger_output!.uuid).toBe(run.trigger_output!.uuid);
    const [analyse, report] = stack.model.requests.map((request) => request.body.messages[0].content);
    expect(analyse).toBe(`Analyse ${JSON.stringify({ items: ['a', 'b'] }, null, 2)}`);
    expect(report).toBe('Report on {\n  "trend": "up"\n}');
    expect(child.definition.steps[2].model).toBe('fixed-model');
    expect(child.tokens.total).toBe(child.steps[2].tokens.total + child.steps[3].tokens.total);

    const parent = (await stack.user.get(`/runs/${run.uuid}`)).body;
    expect(parent.resumed_by).toEqual([
      expect.objectContaining({ uuid: child.uuid, status: 'completed', resumed_from_step_uuid: steps[2].uuid }),
    ]);
    expect((await stack.user.get(`/workflows/${wf.uuid}`)).body).toMatchObject({ total_runs: 2, failed_runs: 1, successful_runs: 1 });
  });

  it('resumes from the failed step by default with the original definition, $previous_output being the last carried output', async () => {
    const { run } = await failAtStepThree();
    stack.model.reset();
    stack.model.script(reply.json({ trend: 'flat' }), reply.text('done'));
    const resumed = await stack.user.post(`/runs/${run.uuid}/resume`);
    expect(resumed.status).toBe(201);
    const child = await stack.waitForRun(resumed.body.uuid);
    expect(child).toMatchObject({ status: 'completed', resumed_from_step_uuid: run.steps[2].step_definition_uuid });
    expect(stack.model.requests.map((request) => request.body.model)).toEqual(['broken-model', 'test-model']);
  });

  it('ends failed, not partial_success, when the first step fails', async () => {
    const wf = await stack.createWorkflow([llmStep({ retry_policy: { max_attempts: 1 } }), llmStep()]);
    stack.model.script(reply.error(400));
    const started = await stack.user.post(`/workflows/${wf.uuid}/runs`, {});
    const run = await stack.waitForRun(started.body.uuid);
    expect(run.status).toBe('failed');
    expect((await stack.user.get(`/runs?status=partial_success&workflow_uuid=${wf.uuid}`)).body.total).toBe(0);
  });

  it('refuses resumes that cannot hold, writing nothing', async () => {
    const { steps, wf, run } = await failAtStepThree();
    const refusals: [unknown, number, string, string][] = [
      [{ from_step_uuid: randomUUID() }, 422, 'STEP_NOT_IN_DEFINITION', 'from_step_uuid'],
      [{ from_step_uuid: steps[3].uuid }, 422, 'STEP_NOT_COMPLETED', 'from_step_uuid'],
      [{ from_step_uuid: 'step-3' }, 422, 'VALIDATION_FAILED', 'from_step_uuid'],
      [{ definition: 'latest' }, 422, 'VALIDATION_FAILED', 'definition'],
      [{ from: steps[2].uuid }, 422, 'VALIDATION_FAILED', 'from'],
    ];
    for (const [body, status, code, field] of refusals) {
      const refused = await stack.user.post(`/runs/${run.uuid}/resume`, body);
      expect({ body, status: refused.status, code: refused.body.code, field: refused.body.details?.field }).toEqual({
        body,
        status,
        code,
        field,
      });
    }
    // A step removed from the workflow is not in the current definition.
    expect((await stack.user.call('DELETE', `/workflows/${wf.uuid}/steps/${steps[3].uuid}`)).status).toBe(200);
    const gone = await stack.user.post(`/runs/${run.uuid}/resume`, { from_step_uuid: steps[3].uuid, definition: 'current' });
    expect(gone.body).toMatchObject({ code: 'STEP_NOT_IN_DEFINITION', details: { field: 'from_step_uuid' } });
    expect((await stack.user.post(`/runs/${randomUUID()}/resume`)).status).toBe(404);
    expect((await stack.user.get(`/workflows/${wf.uuid}/runs`)).body.total).toBe(1);
  });

  it('refuses to resume a run that is still running', async () => {
    const wf = await stack.createWorkflow([llmStep()]);
    stack.model.script(reply.text('slow', { delayMs: 3_000 }));
    const started = await stack.user.post(`/workflows/${wf.uuid}/runs`, {});
    const refused = await stack.user.post(`/runs/${started.body.uuid}/resume`);
    expect(refused).toMatchObject({ status: 409, body: { code: 'RUN_STILL_RUNNING' } });
    await stack.waitForRun(started.body.uuid);
  });

  it('gives one run for one Idempotency-Key, also when the requests race', async () => {
    const wf = await stack.createWorkflow([llmStep()]);
    stack.model.respondWith(() => reply.text('ok'));
    const key = { 'Idempotency-Key': `order-${randomUUID()}` };
    const first = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: 1 }, key);
    const again = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: 1 }, key);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.uuid).toBe(first.body.uuid);
    await stack.waitForRun(first.body.uuid);

    const raceKey = { 'Idempotency-Key': `race-${randomUUID()}` };
    const raced = await Promise.all([1, 2, 3].map(() => stack.user.post(`/workflows/${wf.uuid}/runs`, {}, raceKey)));
    expect(new Set(raced.map((answer) => answer.body.uuid)).size).toBe(1);
    expect(raced.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    await stack.waitForRun(raced[0].body.uuid);

    expect((await stack.user.get(`/workflows/${wf.uuid}/runs`)).body.total).toBe(2);
    expect(stack.model.requests).toHaveLength(2);
    const other = await stack.api.newUser();
    const theirs = await other.post(`/workflows/${wf.uuid}/runs`, {}, key);
    expect(theirs.status).toBe(404);
    const bad = await stack.user.post(`/workflows/${wf.uuid}/runs`, {}, { 'Idempotency-Key': 'x'.repeat(256) });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'Idempotency-Key' } });
  });

  it('gives one resumed run for one Idempotency-Key', async () => {
    const { run } = await failAtStepThree();
    stack.model.reset();
    stack.model.respondWith(() => reply.text('fine'));
    const key = { 'Idempotency-Key': `resume-${randomUUID()}` };
    const first = await stack.user.post(`/runs/${run.uuid}/resume`, {}, key);
    const again = await stack.user.post(`/runs/${run.uuid}/resume`, {}, key);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.uuid).toBe(first.body.uuid);
    await stack.waitForRun(first.body.uuid);
    expect((await stack.user.get(`/runs/${run.uuid}`)).body.resumed_by).toHaveLength(1);
    expect(stack.model.requests).toHaveLength(2);
  });
});
