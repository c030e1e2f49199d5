// Inputs that used to answer 500 or save something every run then fails: each is now a coded 4xx with
// nothing written.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RunPreparer, RunReconciler } from '../libs/runs/src';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('Malformed input answered with a coded 4xx', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const rowsOf = async (table: string, column: string, value: string) =>
    Number((await stack.api.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [value]))[0].n);

  it('refuses crons with a field out of range, on create and on patch', async () => {
    const workflow = await stack.createWorkflow([llmStep()]);
    for (const cron of ['61 * * * *', '*/0 * * * *', '0 25 * * *']) {
      const created = await stack.user.post(`/workflows/${workflow.uuid}/schedules`, { schedule_type: 'recurring', cron_expression: cron });
      expect([cron, created.status, created.body.details?.field]).toEqual([cron, 422, 'cron_expression']);
    }
    const hourly = await stack.user.post(`/workflows/${workflow.uuid}/schedules`, {
      schedule_type: 'recurring',
      cron_expression: '0 * * * *',
    });
    expect(await stack.user.patch(`/schedules/${hourly.body.id}`, { cron_expression: '0 25 * * *' })).toMatchObject({
      status: 422,
      body: { details: { field: 'cron_expression' } },
    });
    await stack.user.delete(`/schedules/${hourly.body.id}`);
  });

  it('refuses a webhook delivery whose Idempotency-Key is too long before starting anything', async () => {
    const workflow = await stack.createWorkflow([llmStep()], { trigger: { type: 'webhook', filter_rules: {} } });
    const { secret } = (await stack.user.post(`/triggers/${workflow.trigger!.uuid}/rotate-secret`)).body;
    const delivered = await stack.api
      .anonymous()
      .call('POST', `/hooks/${workflow.trigger!.uuid}`, { a: 1 }, { 'x-stepwise-secret': secret, 'idempotency-key': 'k'.repeat(300) });
    expect(delivered).toMatchObject({ status: 422, body: { details: { field: 'Idempotency-Key' } } });
    expect([
      await rowsOf('workflow_runs', 'workflow_uuid', workflow.uuid),
      await rowsOf('trigger_events', 'trigger_uuid', workflow.trigger!.uuid),
    ]).toEqual([0, 0]);
  });

  it('refuses urn:uuid ids, repeated query parameters and deeply nested data', async () => {
    const urn = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep({ uuid: `urn:uuid:${randomUUID()}` })],
    });
    expect(urn).toMatchObject({ status: 422, body: { details: { field: 'steps[0].uuid' } } });
    for (const query of [
      'workflow_uuid=a&workflow_uuid=b',
      'schedule_id=a&schedule_id=b',
      'status=failed&status=running',
      'limit=1&limit=2',
    ]) {
      const listed = await stack.user.get(`/runs?${query}`);
      expect([query, listed.status, listed.body.details?.field]).toEqual([query, 422, query.split('=')[0]]);
    }
    const workflow = await stack.createWorkflow([llmStep()]);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const nested = await stack.user.call('POST', `/workflows/${workflow.uuid}/runs`, `{"trigger_output": ${deep}}`);
    expect(nested.status).toBeGreaterThanOrEqual(400);
    expect(nested.status).toBeLessThan(500);
    expect(nested.body.code).toEqual(expect.any(String));
    expect(await rowsOf('workflow_runs', 'workflow_uuid', workflow.uuid)).toBe(0);
  });

  it('starts a run whose rows were written but whose workflow never started (the API died in between), behind a page of long runs', async () => {
    const workflow = await stack.createWorkflow([llmStep()]);
    const preparer = stack.api.app.get(RunPreparer);
    // What POST /runs writes before it starts the workflow, and nothing more.
    const prepare = (runUuid: string) =>
      preparer.prepare({
        userId: stack.user.userId,
        workflowUuid: workflow.uuid,
        triggerOutput: { text: 'hi' },
        runUuid,
        temporalWorkflowId: `run-${runUuid}`,
        origin: 'manual',
      });
    // More long runs than one page of candidates, recorded before it: their executions stay running on a
    // task queue no worker polls.
    const temporal = await stack.temporal();
    const alive = Array.from({ length: 55 }, () => randomUUID());
    for (const uuid of alive) await prepare(uuid);
    await Promise.all(
      alive.map((uuid) => temporal.workflow.start('longRun', { workflowId: `run-${uuid}`, taskQueue: `nobody-${uuid}`, args: [] })),
    );
    // And one whose recorded definition cannot become a workflow input: logged and passed over.
    const broken = randomUUID();
    await prepare(broken);
    const db = stack.api.app.get(DataSource);
    await db.query("UPDATE workflow_runs SET definition = '{}' WHERE uuid = ?", [broken]);
    const runUuid = randomUUID();
    await prepare(runUuid);
    stack.model.script(reply.text('reconciled'));
    const reconciler = stack.api.app.get(RunReconciler);
    // Other spec files share the database: their runs may be in the same pass.
    expect(await reconciler.pass(0)).toBeGreaterThanOrEqual(1);
    await reconciler.pass(0);
    await Promise.all(alive.map((uuid) => temporal.workflow.getHandle(`run-${uuid}`).terminate('the spec is done with it')));
    const run = await stack.waitForRun(runUuid);
    expect(run).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: 'reconciled' } }] });
    expect(stack.model.requests).toHaveLength(1);
    await db.query("UPDATE workflow_runs SET status = 'failed' WHERE uuid = ?", [broken]); // not a candidate for later passes
  });

  it('shows a run whose execution was terminated as ended without writing it, and the reconciler records that end', async () => {
    const workflow = await stack.createWorkflow([llmStep({ name: 'slow' }), llmStep({ name: 'next' })]);
    stack.model.script(reply.text('too late', { delayMs: 60_000 }));
    const started = await stack.startRun(workflow.uuid);
    await stack.model.waitForRequests(1);
    await (await stack.temporal()).workflow.getHandle(started.temporal.workflow_id).terminate('operator stopped it');
    const db = stack.api.app.get(DataSource);
    const recorded = async () => [
      (await db.query('SELECT status FROM workflow_runs WHERE uuid = ?', [started.uuid]))[0].status,
      ...(await db.query('SELECT status FROM workflow_step_instances WHERE run_uuid = ? ORDER BY position', [started.uuid])).map(
        (row: { status: string }) => row.status,
      ),
    ];

    const shown = await stack.waitForRun(started.uuid, (run) => run.status !== 'running', 20_000);
    expect(shown.steps.map((step) => [step.status, step.error_message])).toEqual([
      ['failed', 'Interrupted: Terminated in Temporal: operator stopped it'],
      ['skipped', null],
    ]);
    expect(await recorded()).toEqual(['running', 'running', 'pending']);

    // Older than the reconciler's age, so that a pass at its usual age reaches it.
    await db.query('UPDATE workflow_runs SET created_at = created_at - INTERVAL 2 MINUTE WHERE uuid = ?', [started.uuid]);
    await stack.api.app.get(RunReconciler).pass(60);

    expect(await recorded()).toEqual(['failed', 'failed', 'skipped']);
    expect((await stack.user.get(`/runs/${started.uuid}`)).body).toMatchObject({
      status: 'failed',
      error_message: 'Terminated in Temporal: operator stopped it',
      steps: shown.steps.map(({ status, error_message }) => ({ status, error_message })),
    });
  });

  it('refuses values that would save and then fail every run', async () => {
    const absurd = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep({ retry_policy: { initial_interval_seconds: 1e300 } })],
    });
    expect(absurd).toMatchObject({ status: 422, body: { details: { field: 'steps[0].retry_policy.initial_interval_seconds' } } });
    const unclosed = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep({ system_prompt: 'Hello <<trigger_output y' })],
    });
    expect(unclosed).toMatchObject({ status: 422, body: { details: { field: 'steps[0].system_prompt' } } });
    const workflow = await stack.createWorkflow([llmStep()]);
    const catchup = await stack.user.post(`/workflows/${workflow.uuid}/schedules`, {
      schedule_type: 'recurring',
      cron_expression: '0 * * * *',
      catchup_window_seconds: 1e20,
    });
    expect(catchup).toMatchObject({ status: 422, body: { details: { field: 'catchup_window_seconds' } } });
  });
});
