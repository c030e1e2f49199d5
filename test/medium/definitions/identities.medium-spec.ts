// Identities on the real MySQL: user ids compared exactly (`alice` is not `Alice`, `e` is not `é`), a uuid
// kept by the user who first saved it, and a trigger's secret, signatures and deliveries gone with it.
import { randomUUID } from 'node:crypto';
import type { TriggerDefinition } from '@app/contracts';
import { ErrorCode } from '@app/domain';
import { ApiKeyRepository, TriggerHookRepository, WorkflowRepository } from '@app/persistence';
import { llmStep, newUserId, noTools, workflowDefinition } from '../support/fixtures';
import { startMedium, type MediumApp } from '../support/medium-app';

const webhook = (uuid: string = randomUUID()): TriggerDefinition => ({
  uuid,
  type: 'webhook',
  filter_rules: {},
  initial_data_description: 'a hook',
});
const SIGNATURE = 'ab'.repeat(32);

describe('identities', () => {
  let app: MediumApp;
  let workflows: WorkflowRepository;
  let hooks: TriggerHookRepository;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    app = await startMedium();
    [workflows, hooks, keys] = [app.get(WorkflowRepository), app.get(TriggerHookRepository), app.get(ApiKeyRepository)];
  });
  afterAll(() => app.close());

  /** Rows left under the trigger's uuid in each table that hangs off it. */
  const leftUnder = async (triggerUuid: string) => {
    const counts: Record<string, number> = {};
    for (const table of ['trigger_secrets', 'webhook_signatures', 'trigger_events']) {
      const [row] = (await app.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE trigger_uuid = ?`, [triggerUuid])) as { n: number }[];
      counts[table] = Number(row.n);
    }
    return counts;
  };

  /** A workflow with a webhook trigger that has a secret, one accepted signature and one delivery. */
  async function hookWithHistory(userId: string, trigger = webhook()) {
    const created = await workflows.create(userId, workflowDefinition([llmStep()], { trigger }), 'sealed-notify', noTools);
    await hooks.setSecret(trigger.uuid, 'sealed-secret');
    expect(await hooks.rememberSignature(trigger.uuid, SIGNATURE, 'delivery-1', 600)).toBe(true);
    await hooks.recordEvent({
      trigger_uuid: trigger.uuid,
      user_id: userId,
      delivery_key: 'delivery-1',
      matched: false,
      run_uuid: null,
      body_json: '{}',
    });
    expect(await leftUnder(trigger.uuid)).toEqual({ trigger_secrets: 1, webhook_signatures: 1, trigger_events: 1 });
    return created;
  }

  describe('user ids compared exactly', () => {
    it('every column holding a user id, a uuid or another id is utf8mb4_bin, in every table the migrations made', async () => {
      const loose = (await app.db.query(
        `SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLLATION_NAME) AS name FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'migrations' AND DATA_TYPE IN ('char', 'varchar')
            AND (COLUMN_NAME IN ('id', 'uuid', 'user_id', 'key_hash', 'key_prefix', 'call_key', 'event_key', 'delivery_key', 'signature') OR COLUMN_NAME LIKE '%\\_uuid' OR COLUMN_NAME LIKE '%\\_id')
            AND COLLATION_NAME <> 'utf8mb4_bin'`,
      )) as { name: string }[];

      expect(loose.map(({ name }) => name)).toEqual([]);
    });

    it.each([
      ['Alice', 'alice'],
      ['renée', 'renee'],
      ['Zoë', 'zoe'],
    ])("%s's workflows, keys and steps are not %s's", async (owner, lookalike) => {
      const suffix = randomUUID();
      const [ownerId, otherId] = [`${owner}-${suffix}`, `${lookalike}-${suffix}`];
      const created = await workflows.create(ownerId, workflowDefinition(), 'sealed', noTools);
      await keys.insert({
        uuid: randomUUID(),
        key_hash: randomUUID().replace(/-/g, '').repeat(2),
        key_prefix: 'sk_medium',
        user_id: ownerId,
        name: 'k',
      });

      expect(await workflows.find(otherId, created.uuid)).toBeNull();
      expect(await workflows.list(otherId, { limit: 10 })).toMatchObject({ items: [], total: 0 });
      expect(await workflows.findWorkflowOfStep(otherId, created.steps[0].uuid)).toBeNull();
      expect(await workflows.delete(otherId, created.uuid)).toBe(false);
      expect(await keys.list(otherId)).toEqual([]);
      expect(await workflows.find(ownerId, created.uuid)).toMatchObject({ uuid: created.uuid, user_id: ownerId });
      expect(await keys.list(ownerId)).toEqual([expect.objectContaining({ user_id: ownerId })]);
    });

    it('finds an active key by its hash as a listing shows it, and never once revoked', async () => {
      const [userId, keyHash, uuid] = [newUserId(), randomUUID().replace(/-/g, '').repeat(2), randomUUID()];
      await keys.insert({ uuid, key_hash: keyHash, key_prefix: 'sk_medium', user_id: userId, name: 'k' });

      const found = await keys.findActiveByHash(keyHash);
      const listed = await keys.list(userId);
      await keys.revoke(uuid);

      expect(found).toEqual(listed[0]);
      expect(found).toMatchObject({ uuid, user_id: userId, revoked_at: null, created_at: expect.any(Date) });
      expect(await keys.findActiveByHash(keyHash)).toBeNull();
    });

    it('lists every user id a key was made for, each variant as it was written', async () => {
      const suffix = randomUUID();
      for (const userId of [`Bob-${suffix}`, `bob-${suffix}`])
        await keys.insert({
          uuid: randomUUID(),
          key_hash: randomUUID().replace(/-/g, '').repeat(2),
          key_prefix: 'sk_medium',
          user_id: userId,
          name: 'k',
        });

      expect((await keys.userIds()).filter((userId) => userId.endsWith(suffix)).sort()).toEqual([`Bob-${suffix}`, `bob-${suffix}`]);
    });
  });

  describe('uuids kept by their first user', () => {
    it("refuses another user a deleted workflow's trigger, step and workflow uuids, naming the field", async () => {
      const [owner, taker] = [newUserId(), newUserId()];
      const created = await workflows.create(owner, workflowDefinition([llmStep()], { trigger: webhook() }), 'sealed', noTools);
      await workflows.delete(owner, created.uuid);

      const attempts = [
        workflowDefinition([llmStep()], { trigger: webhook(created.trigger!.uuid) }),
        workflowDefinition([llmStep({ uuid: created.steps[0].uuid })]),
        workflowDefinition([llmStep()], { uuid: created.uuid }),
      ];
      const refusals = await Promise.all(
        attempts.map((definition) => workflows.create(taker, definition, 'sealed', noTools).catch((error: unknown) => error)),
      );

      expect(refusals).toEqual([
        expect.objectContaining({ code: ErrorCode.UuidTaken, details: { field: 'trigger.uuid', uuid: created.trigger!.uuid } }),
        expect.objectContaining({ code: ErrorCode.UuidTaken, details: { field: 'steps[0].uuid', uuid: created.steps[0].uuid } }),
        expect.objectContaining({ code: ErrorCode.UuidTaken, details: { field: 'uuid', uuid: created.uuid } }),
      ]);
      expect(await workflows.list(taker, { limit: 10 })).toMatchObject({ total: 0 });
      expect(await workflows.claimantOf(created.trigger!.uuid)).toBe(owner);
    });

    it('refuses an edit that would take another user’s uuid, and writes nothing', async () => {
      const [owner, taker] = [newUserId(), newUserId()];
      const theirs = await workflows.create(owner, workflowDefinition(), 'sealed', noTools);
      const mine = await workflows.create(taker, workflowDefinition(), 'sealed', noTools);

      const edit = workflows.mutate(
        taker,
        mine.uuid,
        (current) => ({ ...current, steps: [...current.steps, llmStep({ uuid: theirs.steps[0].uuid })] }),
        noTools,
      );

      await expect(edit).rejects.toMatchObject({ code: ErrorCode.UuidTaken, details: { field: 'steps[1].uuid' } });
      expect(await workflows.find(taker, mine.uuid)).toEqual(mine);
    });

    it('gives a user back their own deleted uuids', async () => {
      const owner = newUserId();
      const definition = workflowDefinition([llmStep()], { trigger: webhook() });
      await workflows.create(owner, definition, 'sealed', noTools);
      await workflows.delete(owner, definition.uuid);

      expect(await workflows.create(owner, definition, 'sealed', noTools)).toMatchObject({
        uuid: definition.uuid,
        trigger: definition.trigger,
      });
    });

    it('lets one of two users racing for the same new uuid have it', async () => {
      const uuid = randomUUID();
      const racers = [newUserId(), newUserId()];

      const outcomes = await Promise.allSettled(
        racers.map((userId) => workflows.create(userId, workflowDefinition([llmStep()], { trigger: webhook(uuid) }), 'sealed', noTools)),
      );

      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: ErrorCode.UuidTaken } });
      const winner = racers[outcomes.findIndex((outcome) => outcome.status === 'fulfilled')];
      expect(await workflows.claimantOf(uuid)).toBe(winner);
    });
  });

  describe("a trigger's secret, signatures and deliveries", () => {
    it('go with the workflow', async () => {
      const userId = newUserId();
      const created = await hookWithHistory(userId);

      await workflows.delete(userId, created.uuid);

      expect(await leftUnder(created.trigger!.uuid)).toEqual({ trigger_secrets: 0, webhook_signatures: 0, trigger_events: 0 });
      expect(await hooks.findTarget(created.trigger!.uuid)).toBeNull();
    });

    it('go with a trigger replaced or removed, and stay through an edit that keeps it', async () => {
      const userId = newUserId();
      const created = await hookWithHistory(userId);
      const trigger = created.trigger!;

      await workflows.mutate(
        userId,
        created.uuid,
        (current) => ({ ...current, name: 'renamed', trigger: { ...trigger, initial_data_description: 'edited' } }),
        noTools,
      );
      expect(await leftUnder(trigger.uuid)).toEqual({ trigger_secrets: 1, webhook_signatures: 1, trigger_events: 1 });
      expect(await hooks.findTarget(trigger.uuid)).toMatchObject({
        secret: 'sealed-secret',
        trigger: { initial_data_description: 'edited' },
      });

      await workflows.mutate(userId, created.uuid, (current) => ({ ...current, trigger: webhook() }), noTools);
      expect(await leftUnder(trigger.uuid)).toEqual({ trigger_secrets: 0, webhook_signatures: 0, trigger_events: 0 });

      const second = await hookWithHistory(newUserId());
      await workflows.mutate(second.user_id, second.uuid, (current) => ({ ...current, trigger: null }), noTools);
      expect(await leftUnder(second.trigger!.uuid)).toEqual({ trigger_secrets: 0, webhook_signatures: 0, trigger_events: 0 });
    });

    it('cannot outlive it: a secret for a trigger that is gone is refused', async () => {
      await expect(hooks.setSecret(randomUUID(), 'sealed')).rejects.toMatchObject({ code: ErrorCode.NotFound });
    });
  });

  describe('TriggerHookRepository.rememberSignature', () => {
    it('takes a signature again only with the delivery key it first came with', async () => {
      const created = await workflows.create(newUserId(), workflowDefinition([llmStep()], { trigger: webhook() }), 'sealed', noTools);
      const trigger = created.trigger!.uuid;

      expect(await hooks.rememberSignature(trigger, SIGNATURE, 'key-1', 600)).toBe(true);
      expect(await hooks.rememberSignature(trigger, SIGNATURE, 'key-1', 600)).toBe(true);
      expect(await hooks.rememberSignature(trigger, SIGNATURE, 'KEY-1', 600)).toBe(false);
      expect(await hooks.rememberSignature(trigger, SIGNATURE, null, 600)).toBe(false);
      expect(await hooks.rememberSignature(trigger, 'cd'.repeat(32), null, 600)).toBe(true);
      expect(await hooks.rememberSignature(trigger, 'cd'.repeat(32), null, 600)).toBe(false);
      expect(await hooks.rememberSignature(trigger, 'cd'.repeat(32), 'key-2', 600)).toBe(false);
    });

    it('finds a trigger by its exact uuid only', async () => {
      const created = await workflows.create(newUserId(), workflowDefinition([llmStep()], { trigger: webhook() }), 'sealed', noTools);
      const trigger = created.trigger!.uuid;

      expect(await hooks.findTarget(trigger)).toMatchObject({ trigger: { uuid: trigger } });
      expect(await hooks.findTarget(trigger.toUpperCase())).toBeNull();
      expect(await hooks.findTarget(`${trigger} `)).toBeNull();
    });
  });
});
