// The migration that compares identities exactly and keeps uuids with their first user, run on a database of
// its own over rows written before it: case- and accent-variants of a user id become two users, every uuid
// used is claimed by its user, what deleted triggers left behind goes, and a trigger's secret, signatures and
// deliveries go with it from then on. `down` gives the old schema back.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ensureDatabase } from '../../../libs/persistence/src/migrate';
import { ConceptNames1764000500000 } from '../../../libs/persistence/src/migrations/1764000500000-concept-names';
import { ExactIdentities1764000600000 } from '../../../libs/persistence/src/migrations/1764000600000-exact-identities';
import { dataSourceThrough, dropScratch, scratchUrl } from '../support/migrations-through';

const SCRATCH = 'exact_identities';

const ids = () => ({ workflow: randomUUID(), step: randomUUID(), trigger: randomUUID() });
const [alice, aliceCapital, bob, carol, dave] = [ids(), ids(), ids(), ids(), ids()];

async function insertWorkflow(db: DataSource, userId: string, uuids: ReturnType<typeof ids>, createdAt: string): Promise<void> {
  await db.query(
    "INSERT INTO workflows (uuid, user_id, name, description, is_active, steps, created_at) VALUES (?, ?, 'wf', '', 1, ?, ?)",
    [uuids.workflow, userId, JSON.stringify([uuids.step]), createdAt],
  );
  await db.query(
    "INSERT INTO workflow_steps (uuid, workflow_uuid, user_id, name, type, details) VALUES (?, ?, ?, 'step', 'custom_llm', '{}')",
    [uuids.step, uuids.workflow, userId],
  );
  await db.query("INSERT INTO triggers (uuid, workflow_uuid, user_id, type, details) VALUES (?, ?, ?, 'webhook', '{}')", [
    uuids.trigger,
    uuids.workflow,
    userId,
  ]);
}

async function insertDelivery(db: DataSource, triggerUuid: string, userId: string): Promise<void> {
  await db.query("INSERT INTO trigger_events (uuid, trigger_uuid, user_id, matched, body) VALUES (?, ?, ?, 0, '{}')", [
    randomUUID(),
    triggerUuid,
    userId,
  ]);
}

/** Rows as the schema before the migration let them be, including what the takeover left. */
async function insertRowsBefore(db: DataSource): Promise<void> {
  await insertWorkflow(db, 'alice', alice, '2025-01-01 10:00:00');
  await insertWorkflow(db, 'Alice', aliceCapital, '2025-01-01 10:00:00');
  await insertWorkflow(db, 'renée', ids(), '2025-01-01 10:00:00');
  await insertWorkflow(db, 'renee', ids(), '2025-01-01 10:00:00');
  await db.query("INSERT INTO trigger_secrets (trigger_uuid, secret, created_at) VALUES (?, 'sealed:alice', '2025-01-02 00:00:00')", [
    alice.trigger,
  ]);
  await db.query("INSERT INTO webhook_signatures (trigger_uuid, signature) VALUES (?, REPEAT('a', 64))", [alice.trigger]);
  await insertDelivery(db, alice.trigger, 'alice');
  await insertDelivery(db, alice.trigger, 'mallory');
  // Bob's workflow took a uuid whose earlier trigger had made this secret: it predates the workflow.
  await insertWorkflow(db, 'bob', bob, '2025-03-01 10:00:00');
  await db.query("INSERT INTO trigger_secrets (trigger_uuid, secret, created_at) VALUES (?, 'sealed:left-behind', '2025-02-01 00:00:00')", [
    bob.trigger,
  ]);
  // Dave's trigger is deleted (and his workflow): its secret, signatures and deliveries stayed.
  await db.query("INSERT INTO trigger_secrets (trigger_uuid, secret) VALUES (?, 'sealed:dave')", [dave.trigger]);
  await db.query("INSERT INTO webhook_signatures (trigger_uuid, signature) VALUES (?, REPEAT('d', 64))", [dave.trigger]);
  await insertDelivery(db, dave.trigger, 'dave');
  // Carol's workflow is deleted: its runs stayed.
  await db.query(
    "INSERT INTO workflow_runs (uuid, user_id, workflow_uuid, workflow_name, status, definition, temporal_workflow_id) VALUES (?, 'carol', ?, 'gone', 'completed', '{}', 'run-x')",
    [carol.trigger, carol.workflow],
  );
  await db.query(
    "INSERT INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status) VALUES (?, ?, 'carol', ?, 'step', 'custom_llm', 0, 'completed')",
    [randomUUID(), carol.trigger, carol.step],
  );
}

const count = async (db: DataSource, sql: string, parameters: unknown[] = []): Promise<number> =>
  Number(((await db.query(sql, parameters)) as { n: number }[])[0].n);

const collations = async (db: DataSource, tables: string[]): Promise<Set<string>> => {
  const rows = (await db.query(
    `SELECT DISTINCT COLLATION_NAME AS name FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${tables.map(() => '?').join(', ')}) AND COLUMN_NAME IN ('user_id', 'uuid', 'workflow_uuid', 'trigger_uuid', 'run_uuid', 'key_prefix')`,
    tables,
  )) as { name: string }[];
  return new Set(rows.map(({ name }) => name));
};

const foreignKeysOnTriggers = async (db: DataSource): Promise<string[]> =>
  (
    (await db.query(
      "SELECT TABLE_NAME AS name FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME = 'triggers' ORDER BY TABLE_NAME",
    )) as { name: string }[]
  ).map(({ name }) => name);

describe(ExactIdentities1764000600000.name, () => {
  let db: DataSource;
  const tables = ['workflows', 'workflow_steps', 'triggers', 'trigger_events', 'api_keys', 'workflow_runs', 'tool_calls'];

  beforeAll(async () => {
    await dropScratch(SCRATCH);
    await ensureDatabase(scratchUrl(SCRATCH));
    const before = await dataSourceThrough(scratchUrl(SCRATCH), ConceptNames1764000500000).initialize();
    await before.runMigrations({ transaction: 'each' });
    await before.destroy();
    db = await dataSourceThrough(scratchUrl(SCRATCH), ExactIdentities1764000600000).initialize();
    await insertRowsBefore(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await dropScratch(SCRATCH);
  });

  it("before it, `alice` finds `Alice`'s rows and `renee` finds `renée`'s", async () => {
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workflows WHERE user_id = ?', ['alice'])).toBe(2);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workflows WHERE user_id = ?', ['renee'])).toBe(2);
  });

  it('compares user ids and uuids exactly: each variant is a user of its own', async () => {
    await db.runMigrations({ transaction: 'each' });

    expect(await collations(db, tables)).toEqual(new Set(['utf8mb4_bin']));
    for (const userId of ['alice', 'Alice', 'renee', 'renée']) {
      expect(await count(db, 'SELECT COUNT(*) AS n FROM workflows WHERE user_id = ?', [userId])).toBe(1);
    }
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workflows WHERE uuid = ?', [alice.workflow.toUpperCase()])).toBe(0);
  });

  it('claims every uuid it finds for the user who used it, deleted ones included', async () => {
    const claims = (await db.query('SELECT uuid, user_id, kind FROM uuid_claims')) as { uuid: string; user_id: string; kind: string }[];
    const claimOf = (uuid: string) => claims.find((claim) => claim.uuid === uuid);

    expect(claimOf(alice.workflow)).toEqual({ uuid: alice.workflow, user_id: 'alice', kind: 'workflow' });
    expect(claimOf(aliceCapital.step)).toEqual({ uuid: aliceCapital.step, user_id: 'Alice', kind: 'step' });
    expect(claimOf(bob.trigger)).toEqual({ uuid: bob.trigger, user_id: 'bob', kind: 'trigger' });
    expect(claimOf(dave.trigger)).toEqual({ uuid: dave.trigger, user_id: 'dave', kind: 'trigger' });
    expect(claimOf(carol.workflow)).toEqual({ uuid: carol.workflow, user_id: 'carol', kind: 'workflow' });
    expect(claimOf(carol.step)).toEqual({ uuid: carol.step, user_id: 'carol', kind: 'step' });
  });

  it('drops what deleted triggers left behind, and a secret older than its workflow', async () => {
    const secrets = (await db.query('SELECT trigger_uuid FROM trigger_secrets')) as { trigger_uuid: string }[];
    expect(secrets.map(({ trigger_uuid }) => trigger_uuid)).toEqual([alice.trigger]);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM webhook_signatures WHERE trigger_uuid = ?', [dave.trigger])).toBe(0);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM trigger_events WHERE trigger_uuid = ?', [dave.trigger])).toBe(0);
    const aliceEvents = (await db.query('SELECT user_id FROM trigger_events WHERE trigger_uuid = ?', [alice.trigger])) as {
      user_id: string;
    }[];
    expect(aliceEvents).toEqual([{ user_id: 'alice' }]);
  });

  it("makes a trigger's secret, signatures and deliveries go with it", async () => {
    expect(await foreignKeysOnTriggers(db)).toEqual(['trigger_events', 'trigger_secrets', 'webhook_signatures']);
    await expect(db.query("INSERT INTO trigger_secrets (trigger_uuid, secret) VALUES (?, 'orphan')", [randomUUID()])).rejects.toThrow(
      /foreign key/i,
    );

    await db.query('DELETE FROM workflows WHERE uuid = ?', [alice.workflow]);

    for (const table of ['triggers', 'trigger_secrets', 'webhook_signatures', 'trigger_events']) {
      const column = table === 'triggers' ? 'uuid' : 'trigger_uuid';
      expect(await count(db, `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [alice.trigger])).toBe(0);
    }
    expect(await count(db, 'SELECT COUNT(*) AS n FROM uuid_claims WHERE uuid = ?', [alice.trigger])).toBe(1);
  });

  it('gives the old collations and foreign keys back on the way down, and runs again after', async () => {
    await db.undoLastMigration({ transaction: 'each' });

    expect(await collations(db, tables)).toEqual(new Set(['utf8mb4_unicode_ci']));
    expect(await foreignKeysOnTriggers(db)).toEqual([]);
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'uuid_claims'"),
    ).toBe(0);
    expect(
      await count(db, 'SELECT COUNT(*) AS n FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()'),
    ).toBe(8);

    await db.runMigrations({ transaction: 'each' });
    expect(await collations(db, tables)).toEqual(new Set(['utf8mb4_bin']));
  });
});
