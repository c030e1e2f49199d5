// Webhook triggers end to end, and the per-workflow run counters under concurrent runs.
import { createHmac, randomUUID } from 'node:crypto';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { outputPreview } from '../libs/domain/src';
import { DataSource } from 'typeorm';
import { startStack, type Stack } from './support/stack';

describe('Webhook triggers', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterEach(() => stack.model.reset());
  afterAll(() => stack.close());

  async function webhookWorkflow(filter_rules: unknown) {
    const wf = await stack.user.post('/workflows', {
      name: `hook-${randomUUID().slice(0, 6)}`,
      steps: [llmStep({ system_prompt: 'Handle <<trigger_output.order.id>>' })],
      trigger: { type: 'webhook', filter_rules },
    });
    expect(wf.status).toBe(201);
    const rotated = await stack.user.post(`/triggers/${wf.body.trigger.uuid}/rotate-secret`);
    expect(rotated.body).toMatchObject({ trigger_uuid: wf.body.trigger.uuid, secret: expect.stringMatching(/^whsec_/) });
    return { workflow: wf.body, trigger: wf.body.trigger.uuid as string, secret: rotated.body.secret as string };
  }

  const deliver = (trigger: string, body: unknown, headers: Record<string, string>) =>
    stack.api.anonymous().call('POST', `/hooks/${trigger}`, body, headers);

  it('starts a run for a matching event, with the event as trigger_output', async () => {
    const { workflow, trigger, secret } = await webhookWorkflow({
      all: [
        { path: '$.type', operator: 'equals', value: 'order.created' },
        { path: '$.order.total', operator: 'greater_than', value: 100 },
      ],
    });
    stack.model.script(reply.text('handled'));
    const event = { type: 'order.created', order: { id: 'o-1', total: 150, note: 'café ☕' } };
    // Sent as a sender may format it: the run's trigger data is stored as the same data a POST /runs would store.
    const delivered = await deliver(trigger, JSON.stringify(event, null, 2), { 'x-stepwise-secret': secret });
    expect(delivered).toMatchObject({ status: 202, body: { matched: true, run_uuid: expect.any(String), duplicate: false } });
    const run = await stack.waitForRun(delivered.body.run_uuid);
    expect(run).toMatchObject({ status: 'completed', workflow_uuid: workflow.uuid, trigger_output: { raw_data: event } });
    expect(run.trigger_output).toMatchObject({ summary: outputPreview(event), size_bytes: Buffer.byteLength(JSON.stringify(event)) });
    expect(stack.model.requests[0].body.messages[0].content).toBe('Handle o-1');
  });

  it('answers 200 matched:false to an event the rules do not match, and records it as ignored', async () => {
    const { trigger, secret } = await webhookWorkflow({ path: '$.type', operator: 'equals', value: 'order.created' });
    const delivered = await deliver(trigger, { type: 'order.deleted' }, { 'x-stepwise-secret': secret });
    expect(delivered).toMatchObject({ status: 200, body: { matched: false } });
    const events = await stack.user.get(`/triggers/${trigger}/events`);
    expect(events.body.items).toEqual([
      expect.objectContaining({ uuid: delivered.body.event_uuid, matched: false, run_uuid: null, body: { type: 'order.deleted' } }),
    ]);
    expect(stack.model.requests).toHaveLength(0);
  });

  /** `t=<now>,v1=<hex HMAC of "<t>.<body>">`, as a sender signs a delivery. */
  const sign = (secret: string, body: string, at = Math.floor(Date.now() / 1000)) =>
    `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;

  it('accepts a signature of the timestamp and the body, refuses a bad one, and forgets a rotated secret', async () => {
    const { trigger, secret } = await webhookWorkflow({ path: '$.ok', operator: 'equals', value: false });
    const body = JSON.stringify({ ok: true });
    expect((await deliver(trigger, body, { 'x-stepwise-signature': sign(secret, body) })).body).toMatchObject({ matched: false });
    expect((await deliver(trigger, body, { 'x-stepwise-signature': `t=${Math.floor(Date.now() / 1000)},v1=00` })).body).toMatchObject({
      code: 'WEBHOOK_SIGNATURE_INVALID',
    });
    expect(
      (await deliver(trigger, body, { 'x-stepwise-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` })).body,
    ).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID' });
    expect((await deliver(trigger, JSON.stringify({ ok: false }), { 'x-stepwise-signature': sign(secret, body) })).status).toBe(401);
    expect((await deliver(trigger, body, { 'x-stepwise-secret': 'whsec_wrong' })).status).toBe(401);
    expect((await deliver(trigger, body, {})).status).toBe(401);
    await stack.user.post(`/triggers/${trigger}/rotate-secret`);
    expect((await deliver(trigger, body, { 'x-stepwise-secret': secret })).status).toBe(401);
  });

  it('refuses a replayed or a stale delivery, and answers an unknown trigger as it answers a bad signature', async () => {
    const { trigger, secret } = await webhookWorkflow({ path: '$.ok', operator: 'equals', value: false });
    const body = JSON.stringify({ ok: true });
    const signature = sign(secret, body);
    expect((await deliver(trigger, body, { 'x-stepwise-signature': signature })).status).toBe(200);
    expect(await deliver(trigger, body, { 'x-stepwise-signature': signature })).toMatchObject({
      status: 401,
      body: { code: 'WEBHOOK_REPLAYED' },
    });
    const stale = sign(secret, body, Math.floor(Date.now() / 1000) - 301);
    expect(await deliver(trigger, body, { 'x-stepwise-signature': stale })).toMatchObject({
      status: 401,
      body: { code: 'WEBHOOK_SIGNATURE_STALE' },
    });
    const unknown = await deliver(randomUUID(), body, { 'x-stepwise-signature': signature });
    const wrong = await deliver(trigger, body, { 'x-stepwise-secret': 'whsec_wrong' });
    expect([unknown.status, unknown.body.code]).toEqual([wrong.status, wrong.body.code]);
    // The secret is sealed at rest, and shown only when it is made.
    const [stored] = await stack.api.app.get(DataSource).query('SELECT secret FROM trigger_secrets WHERE trigger_uuid = ?', [trigger]);
    expect(stored.secret).toMatch(/^sealed:v1:/);
    expect(JSON.stringify((await stack.user.get(`/triggers/${trigger}`)).body)).not.toContain(secret);
  });

  it('starts one run for a delivery repeated with the same Idempotency-Key', async () => {
    const { workflow, trigger, secret } = await webhookWorkflow({});
    stack.model.script(reply.text('once'));
    const headers = { 'x-stepwise-secret': secret, 'idempotency-key': `delivery-${randomUUID()}` };
    const [first, second] = await Promise.all([deliver(trigger, { n: 1 }, headers), deliver(trigger, { n: 1 }, headers)]);
    expect(first.status).toBe(202);
    expect(second.body.run_uuid).toBe(first.body.run_uuid);
    expect([first.body.duplicate, second.body.duplicate].sort()).toEqual([false, true]);
    await stack.waitForRun(first.body.run_uuid);
    const third = await deliver(trigger, { n: 1 }, headers);
    expect(third.body).toMatchObject({ run_uuid: first.body.run_uuid, duplicate: true });
    expect((await stack.user.get(`/workflows/${workflow.uuid}/runs`)).body.total).toBe(1);
    expect((await stack.user.get(`/workflows/${workflow.uuid}`)).body.total_runs).toBe(1);
    stack.model.assertDone();
  });

  it('refuses invalid filter rules when the trigger is saved, naming the rule', async () => {
    const reply422 = await stack.user.post('/workflows', {
      name: 'bad rules',
      trigger: { type: 'webhook', filter_rules: { any: [{ path: 'type', operator: 'equals', value: 1 }] } },
    });
    expect(reply422).toMatchObject({ status: 422, body: { details: { field: 'trigger.filter_rules.any[0].path' } } });
    const manual = await stack.user.post('/workflows', { name: 'manual', trigger: { type: 'manual' } });
    expect((await stack.user.post(`/triggers/${manual.body.trigger.uuid}/rotate-secret`)).status).toBe(422);
  });
});

describe('Run counters', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('are exact after 20 concurrent runs with mixed outcomes', async () => {
    const wf = (
      await stack.user.post('/workflows', { name: 'counted', steps: [llmStep({ system_prompt: 'Outcome <<trigger_output.outcome>>' })] })
    ).body;
    stack.model.respondWith((request) =>
      request.body.messages[0].content === 'Outcome fail' ? reply.error(400, { message: 'refused' }) : reply.text('ok', { delayMs: 50 }),
    );
    const outcomes = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 'fail' : 'pass'));
    const runs = await Promise.all(
      outcomes.map((outcome) => stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: { outcome } })),
    );
    const finished = await Promise.all(runs.map((run) => stack.waitForRun(run.body.uuid)));
    const failed = outcomes.filter((o) => o === 'fail').length;
    expect(finished.filter((run) => run.status === 'failed')).toHaveLength(failed);
    expect((await stack.user.get(`/workflows/${wf.uuid}`)).body).toMatchObject({
      total_runs: 20,
      successful_runs: 20 - failed,
      failed_runs: failed,
    });
  });
});
