// One tenant against another through identities: a deleted workflow's uuids (its webhook's above all) stay
// with their user, `alice` is not `Alice`, and a sender repeating one signed delivery gets its run back.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { ApiKeyRepository } from '@app/persistence';
import { ApiKeyService } from '../apps/api/src/auth/api-key.service';
import { ApiClient } from './support/api';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

/** `t=<now>,v1=<hex HMAC of "<t>.<body>">`, as a sender signs a delivery. */
const sign = (secret: string, body: string, at = Math.floor(Date.now() / 1000)) =>
  `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;

describe('hostile identities', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const deliver = (trigger: string, body: string, headers: Record<string, string>) =>
    stack.api.anonymous().call('POST', `/hooks/${trigger}`, body, headers);

  async function webhookWorkflow(user: ApiClient, trigger: Record<string, unknown> = {}) {
    const created = await user.post('/workflows', {
      name: `hook-${randomUUID().slice(0, 6)}`,
      steps: [llmStep()],
      trigger: { type: 'webhook', ...trigger },
    });
    expect(created.status).toBe(201);
    const rotated = await user.post(`/triggers/${created.body.trigger.uuid}/rotate-secret`);
    return { workflow: created.body, trigger: created.body.trigger.uuid as string, secret: rotated.body.secret as string };
  }

  /** A user whose key was made without the CLI's check, as ids made before it were. */
  async function userWithoutTheCheck(userId: string): Promise<ApiClient> {
    const key = `sk_${randomBytes(24).toString('base64url')}`;
    await stack.api.app.get(ApiKeyRepository).insert({
      uuid: randomUUID(),
      key_hash: createHash('sha256').update(key).digest('hex'),
      key_prefix: key.slice(0, 10),
      user_id: userId,
      name: 'e2e',
    });
    return new ApiClient(stack.api.baseUrl, key, userId);
  }

  describe("a deleted workflow's uuids", () => {
    it("are refused to another user with UUID_TAKEN, and the old secret starts nothing in the taker's workflow", async () => {
      const [owner, taker] = [stack.user, await stack.api.newUser()];
      const { workflow, trigger, secret } = await webhookWorkflow(owner);
      const step = workflow.steps[0];
      expect((await owner.delete(`/workflows/${workflow.uuid}`)).status).toBe(204);

      const takers = await Promise.all([
        taker.post('/workflows', { name: 'takeover', steps: [llmStep()], trigger: { uuid: trigger, type: 'webhook' } }),
        taker.post('/workflows', { name: 'takeover', uuid: workflow.uuid, steps: [llmStep()] }),
        taker.post('/workflows', { name: 'takeover', steps: [{ ...llmStep(), uuid: step.uuid }] }),
        taker.post('/workflows/import', {
          format: 'stepwise.workflow/v1',
          workflow: { name: 'takeover', steps: [llmStep()], trigger: { uuid: trigger, type: 'webhook' } },
        }),
      ]);
      expect(takers.map(({ status, body }) => [status, body.code, body.details?.field])).toEqual([
        [409, 'UUID_TAKEN', 'trigger.uuid'],
        [409, 'UUID_TAKEN', 'uuid'],
        [409, 'UUID_TAKEN', 'steps[0].uuid'],
        [409, 'UUID_TAKEN', 'workflow.trigger.uuid'],
      ]);
      const own = await taker.post('/workflows', { name: 'own', steps: [llmStep()] });
      const [put, added] = await Promise.all([
        taker.put(`/workflows/${own.body.uuid}/trigger`, { uuid: trigger, type: 'webhook' }),
        taker.post(`/workflows/${own.body.uuid}/steps`, { ...llmStep(), uuid: step.uuid }),
      ]);
      expect([put.status, put.body.code, put.body.details.field, added.status, added.body.code]).toEqual([
        409,
        'UUID_TAKEN',
        'uuid',
        409,
        'UUID_TAKEN',
      ]);

      const body = JSON.stringify({ event: 'after delete' });
      expect((await deliver(trigger, body, { 'x-stepwise-secret': secret })).status).toBe(401);
      expect((await deliver(trigger, body, { 'x-stepwise-signature': sign(secret, body) })).status).toBe(401);
      expect((await taker.get('/runs')).body.total).toBe(0);
    });

    it('come back to their own user, whose old secret died with the trigger', async () => {
      const { workflow, trigger, secret } = await webhookWorkflow(stack.user);
      await stack.user.delete(`/workflows/${workflow.uuid}`);

      const again = await stack.user.post('/workflows', {
        name: 'again',
        uuid: workflow.uuid,
        steps: workflow.steps,
        trigger: { uuid: trigger, type: 'webhook' },
      });

      expect(again).toMatchObject({ status: 201, body: { uuid: workflow.uuid, trigger: { uuid: trigger } } });
      expect((await deliver(trigger, '{}', { 'x-stepwise-secret': secret })).status).toBe(401);
    });
  });

  describe('user ids', () => {
    it.each([
      ['Alice', 'alice'],
      ['Renée', 'Renee'],
    ])("are compared exactly: %s's workflows and runs are not %s's", async (owner, lookalike) => {
      const suffix = randomUUID().slice(0, 8);
      const [first, second] = [await userWithoutTheCheck(`${owner}-${suffix}`), await userWithoutTheCheck(`${lookalike}-${suffix}`)];
      const workflow = (await first.post('/workflows', { name: 'private', steps: [llmStep()] })).body;
      stack.model.script(reply.text('done'));
      const run = (await first.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { text: 'hi' } })).body;
      expect((await stack.waitForRun(run.uuid, undefined, undefined, first)).status).toBe('completed');

      expect((await second.get('/workflows')).body).toMatchObject({ items: [], total: 0 });
      expect((await second.get(`/workflows/${workflow.uuid}`)).status).toBe(404);
      expect((await second.get(`/runs/${run.uuid}`)).status).toBe(404);
      expect((await second.get('/runs')).body.total).toBe(0);
      expect((await second.post(`/workflows/${workflow.uuid}/runs`, {})).status).toBe(404);
      expect((await first.get('/workflows')).body.total).toBe(1);
    });

    it('that differ only in case or accents from an existing one get no key', async () => {
      const suffix = randomUUID().slice(0, 8);
      const keys = stack.api.app.get(ApiKeyService);
      await keys.create(`Carol-${suffix}`, 'first');

      await expect(keys.create(`carol-${suffix}`, 'look-alike')).rejects.toMatchObject({
        code: 'USER_ID_CONFUSABLE',
        details: { existing: `Carol-${suffix}` },
      });
      await expect(keys.create(`Cárol-${suffix}`, 'look-alike')).rejects.toMatchObject({ code: 'USER_ID_CONFUSABLE' });
      await expect(keys.create(`Carol-${suffix}`, 'second key')).resolves.toMatchObject({ record: { user_id: `Carol-${suffix}` } });
    });
  });

  describe('a repeated signed delivery', () => {
    it('with its Idempotency-Key, sent again in the same second, gets the same run: one run starts', async () => {
      const { workflow, trigger, secret } = await webhookWorkflow(stack.user);
      const body = JSON.stringify({ order: 'o-1' });
      const headers = { 'x-stepwise-signature': sign(secret, body), 'idempotency-key': `delivery-${randomUUID()}` };
      stack.model.script(reply.text('handled'));

      const first = await deliver(trigger, body, headers);
      const [second, third] = await Promise.all([deliver(trigger, body, headers), deliver(trigger, body, headers)]);

      expect(first).toMatchObject({ status: 202, body: { matched: true, duplicate: false } });
      for (const repeat of [second, third])
        expect(repeat).toMatchObject({ status: 202, body: { matched: true, run_uuid: first.body.run_uuid, duplicate: true } });
      await stack.waitForRun(first.body.run_uuid);
      expect((await stack.user.get(`/workflows/${workflow.uuid}/runs`)).body.total).toBe(1);
    });

    it('without its key, or with another key, is a replay', async () => {
      const { workflow, trigger, secret } = await webhookWorkflow(stack.user, {
        filter_rules: { path: '$.ok', operator: 'equals', value: true },
      });
      const body = JSON.stringify({ ok: false });
      // Two signatures of the same body, one second apart whatever the time the test takes between them.
      const signedAt = Math.floor(Date.now() / 1000);
      const signature = sign(secret, body, signedAt);

      expect((await deliver(trigger, body, { 'x-stepwise-signature': signature, 'idempotency-key': 'k-1' })).body).toMatchObject({
        matched: false,
      });
      expect(await deliver(trigger, body, { 'x-stepwise-signature': signature })).toMatchObject({
        status: 401,
        body: { code: 'WEBHOOK_REPLAYED' },
      });
      expect(await deliver(trigger, body, { 'x-stepwise-signature': signature, 'idempotency-key': 'k-2' })).toMatchObject({
        status: 401,
        body: { code: 'WEBHOOK_REPLAYED' },
      });
      expect(await deliver(trigger, body, { 'x-stepwise-signature': signature, 'idempotency-key': 'K-1' })).toMatchObject({
        status: 401,
        body: { code: 'WEBHOOK_REPLAYED' },
      });
      const unkeyed = sign(secret, body, signedAt - 1);
      expect((await deliver(trigger, body, { 'x-stepwise-signature': unkeyed })).status).toBe(200);
      expect(await deliver(trigger, body, { 'x-stepwise-signature': unkeyed })).toMatchObject({
        status: 401,
        body: { code: 'WEBHOOK_REPLAYED' },
      });
      expect((await stack.user.get(`/workflows/${workflow.uuid}/runs`)).body.total).toBe(0);
    });
  });
});
