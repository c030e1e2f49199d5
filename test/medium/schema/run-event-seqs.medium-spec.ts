// The migration that moves a run's event counter off its row onto run_event_seqs, run on a database of its own
// with a run in flight before it: its events go on numbering from where they were, a new run's start at 1,
// the counter goes with its run, and `down` gives workflow_runs.last_event_seq back with the numbers reached.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ensureDatabase } from '../../../libs/persistence/src/migrate';
import { RunEventSeqs1764005400000 } from '../../../libs/persistence/src/migrations/1764005400000-run-event-seqs';
import { dataSourceThrough, dropScratch, scratchUrl } from '../support/migrations-through';

const SCRATCH = 'run_event_seqs';

async function insertRun(db: DataSource): Promise<{ run: string; step: string }> {
  const [run, step] = [randomUUID(), randomUUID()];
  await db.query(
    `INSERT INTO workflow_runs (uuid, user_id, workflow_uuid, workflow_name, status, definition, temporal_workflow_id)
     VALUES (?, 'user-1', ?, 'wf', 'running', '{}', ?)`,
    [run, randomUUID(), `run-${run}`],
  );
  await db.query(
    `INSERT INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status)
     VALUES (?, ?, 'user-1', ?, 'ask', 'custom_llm', 0, 'pending')`,
    [step, run, randomUUID()],
  );
  return { run, step };
}

const setStep = (db: DataSource, step: string, status: string) =>
  db.query('UPDATE workflow_step_instances SET status = ? WHERE uuid = ?', [status, step]);

const eventsOf = async (db: DataSource, run: string) =>
  (
    (await db.query('SELECT seq, type FROM run_events WHERE run_uuid = ? ORDER BY seq', [run])) as {
      seq: number;
      type: string;
    }[]
  ).map(({ seq, type }) => [Number(seq), type]);

const counterOf = async (db: DataSource, run: string): Promise<number | undefined> => {
  const [row] = (await db.query('SELECT seq FROM run_event_seqs WHERE run_uuid = ?', [run])) as { seq: number }[];
  return row && Number(row.seq);
};

const columnsOf = async (db: DataSource, table: string): Promise<string[]> =>
  (
    (await db.query('SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', [
      table,
    ])) as { name: string }[]
  ).map(({ name }) => name);

describe('the migration counting run events on run_event_seqs', () => {
  let db: DataSource;
  let inFlight: { run: string; step: string };

  beforeAll(async () => {
    await dropScratch(SCRATCH);
    await ensureDatabase(scratchUrl(SCRATCH));
    db = await dataSourceThrough(scratchUrl(SCRATCH), RunEventSeqs1764005400000).initialize();
    await db.runMigrations({ transaction: 'each' });
    await db.undoLastMigration({ transaction: 'each' });
  });

  afterAll(async () => {
    await db?.destroy();
    await dropScratch(SCRATCH);
  });

  it('goes on numbering a run begun before it, 1..n without a gap, and numbers a new run from 1', async () => {
    inFlight = await insertRun(db);
    await setStep(db, inFlight.step, 'running');
    expect(await eventsOf(db, inFlight.run)).toEqual([
      [1, 'run_started'],
      [2, 'step_started'],
    ]);

    await db.runMigrations({ transaction: 'each' });

    expect(await columnsOf(db, 'workflow_runs')).not.toContain('last_event_seq');
    expect(await counterOf(db, inFlight.run)).toBe(2);
    await setStep(db, inFlight.step, 'completed');
    await db.query("UPDATE workflow_runs SET status = 'completed' WHERE uuid = ?", [inFlight.run]);
    expect(await eventsOf(db, inFlight.run)).toEqual([
      [1, 'run_started'],
      [2, 'step_started'],
      [3, 'step_completed'],
      [4, 'run_ended'],
    ]);

    const fresh = await insertRun(db);
    await setStep(db, fresh.step, 'running');
    await setStep(db, fresh.step, 'failed');
    expect(await eventsOf(db, fresh.run)).toEqual([
      [1, 'run_started'],
      [2, 'step_started'],
      [3, 'step_failed'],
    ]);
    expect(await counterOf(db, fresh.run)).toBe(3);
  });

  it('numbers a run that has no counter row (one written while the triggers were swapped) after its last event', async () => {
    const { run, step } = await insertRun(db);
    await db.query('DELETE FROM run_event_seqs WHERE run_uuid = ?', [run]);

    await setStep(db, step, 'running');

    expect(await eventsOf(db, run)).toEqual([
      [1, 'run_started'],
      [2, 'step_started'],
    ]);
    expect(await counterOf(db, run)).toBe(2);
  });

  it("drops a run's counter with the run", async () => {
    const { run } = await insertRun(db);
    expect(await counterOf(db, run)).toBe(1);

    await db.query('DELETE FROM workflow_runs WHERE uuid = ?', [run]);

    expect(await counterOf(db, run)).toBeUndefined();
  });

  it("gives last_event_seq back on the way down, with the numbers reached, and counts on the run's row again", async () => {
    await db.undoLastMigration({ transaction: 'each' });

    const [row] = (await db.query('SELECT last_event_seq FROM workflow_runs WHERE uuid = ?', [inFlight.run])) as {
      last_event_seq: number;
    }[];
    expect(Number(row.last_event_seq)).toBe(4);
    await db.query(`UPDATE workflow_runs SET notification = '{"sent":true}' WHERE uuid = ?`, [inFlight.run]);
    expect((await eventsOf(db, inFlight.run)).at(-1)).toEqual([5, 'notification_sent']);
    expect(await columnsOf(db, 'workflow_runs')).toContain('last_event_seq');
  });
});
