// The migration that lets assistant sessions stay open (#34), run on a database of its own over sessions
// written before it: the ones that had ended (saved, failed, or idle past the day their workflow waited)
// are closed, the others stay open; `down` gives the old columns back.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ensureDatabase } from '../../../libs/persistence/src/migrate';
import { AssistantOpenSessions1764000800000 } from '../../../libs/persistence/src/migrations/1764000800000-assistant-open-sessions';
import { ScheduleCaps1764000700000 } from '../../../libs/persistence/src/migrations/1764000700000-schedule-caps';
import { dataSourceThrough, dropScratch, scratchUrl } from '../support/migrations-through';

const SCRATCH = 'assistant_open';

const sessions = { saved: randomUUID(), failed: randomUUID(), asking: randomUUID(), idle: randomUUID() };

async function insertSession(db: DataSource, uuid: string, stage: string, updatedAt: string): Promise<void> {
  await db.query(
    `INSERT INTO workflow_agent_states (uuid, user_id, mode, stage, intent_summary, conversations, pending_questions, generation, created_at, updated_at)
     VALUES (?, 'alice', 'create', ?, '', '[]', '[]', '[]', ?, ?)`,
    [uuid, stage, updatedAt, updatedAt],
  );
}

describe(AssistantOpenSessions1764000800000.name, () => {
  let db: DataSource;
  const openness = async () =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(sessions).map(async ([name, uuid]) => {
          const [row] = (await db.query('SELECT is_open FROM workflow_agent_states WHERE uuid = ?', [uuid])) as { is_open: number }[];
          return [name, row.is_open];
        }),
      ),
    );

  beforeAll(async () => {
    await dropScratch(SCRATCH);
    await ensureDatabase(scratchUrl(SCRATCH));
    const before = await dataSourceThrough(scratchUrl(SCRATCH), ScheduleCaps1764000700000).initialize();
    await before.runMigrations({ transaction: 'each' });
    await before.destroy();
    db = await dataSourceThrough(scratchUrl(SCRATCH), AssistantOpenSessions1764000800000).initialize();
    const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
    await insertSession(db, sessions.saved, 'completed', now);
    await insertSession(db, sessions.failed, 'failed', now);
    await insertSession(db, sessions.asking, 'clarification', now);
    await insertSession(db, sessions.idle, 'clarification', '2025-01-01 10:00:00.000');
  });

  afterAll(async () => {
    await db?.destroy();
    await dropScratch(SCRATCH);
  });

  it('closes the sessions that had ended and keeps the one still waiting for a message open, their updated_at unchanged', async () => {
    await db.runMigrations({ transaction: 'each' });
    expect(await openness()).toEqual({ saved: 0, failed: 0, asking: 1, idle: 0 });
    const [idle] = (await db.query('SELECT updated_at, base_fingerprint, failed_attempt FROM workflow_agent_states WHERE uuid = ?', [
      sessions.idle,
    ])) as { updated_at: Date; base_fingerprint: null; failed_attempt: null }[];
    expect(idle).toEqual({ updated_at: new Date('2025-01-01T10:00:00.000Z'), base_fingerprint: null, failed_attempt: null });
  });

  it('refuses a failed_attempt that is not JSON, and gives the old columns back on the way down', async () => {
    await expect(
      db.query("UPDATE workflow_agent_states SET failed_attempt = 'not json' WHERE uuid = ?", [sessions.asking]),
    ).rejects.toThrow();
    await db.undoLastMigration({ transaction: 'each' });
    const columns = (await db.query(
      "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'workflow_agent_states'",
    )) as { name: string }[];
    expect(columns.map(({ name }) => name).filter((name) => ['is_open', 'base_fingerprint', 'failed_attempt'].includes(name))).toEqual([]);
  });
});
