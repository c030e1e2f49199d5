// The migration that names each column for what it holds, run on a database of its own with rows written
// before it: their messages and indexes move with the renames, JSON stays checked, `down` gives the old names back.
import type { DataSource } from 'typeorm';
import { ensureDatabase } from '../../../libs/persistence/src/migrate';
import { ConceptNames1764000500000 } from '../../../libs/persistence/src/migrations/1764000500000-concept-names';
import { dataSourceThrough, dropScratch, scratchUrl } from '../support/migrations-through';

const RUN = '00000000-0000-4000-8000-00000000a001';
const STEP = '00000000-0000-4000-8000-00000000a002';
const stepMessages = [{ role: 'user', content: 'Summarise this' }];
const conversation = [
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Hi' },
];

const SCRATCH = 'concept_names';

const columnsOf = async (db: DataSource, table: string): Promise<string[]> =>
  (
    (await db.query('SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', [
      table,
    ])) as { name: string }[]
  ).map(({ name }) => name);

async function insertRowsWithMessages(db: DataSource): Promise<void> {
  await db.query(
    `INSERT INTO workflow_runs (uuid, user_id, workflow_uuid, workflow_name, status, definition, temporal_workflow_id, messages)
     VALUES (?, 'user-1', ?, 'chat', 'awaiting_input', '{}', 'run-a001', ?)`,
    [RUN, RUN, JSON.stringify(conversation)],
  );
  await db.query(
    `INSERT INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status, messages, iteration)
     VALUES (?, ?, 'user-1', ?, 'summarise', 'custom_llm', 0, 'completed', ?, 3)`,
    [STEP, RUN, STEP, JSON.stringify(stepMessages)],
  );
}

describe('the migration naming the message and execution columns', () => {
  let db: DataSource;

  beforeAll(async () => {
    await dropScratch(SCRATCH);
    await ensureDatabase(scratchUrl(SCRATCH));
    db = await dataSourceThrough(scratchUrl(SCRATCH), ConceptNames1764000500000).initialize();
    await db.runMigrations({ transaction: 'each' });
    await db.undoLastMigration({ transaction: 'each' });
  });

  afterAll(async () => {
    await db?.destroy();
    await dropScratch(SCRATCH);
  });

  it('moves what was written before it to model_messages, conversation_messages and execution_index, JSON still checked', async () => {
    expect(await columnsOf(db, 'workflow_step_instances')).toContain('messages');
    await insertRowsWithMessages(db);

    await db.runMigrations({ transaction: 'each' });

    expect(await columnsOf(db, 'workflow_step_instances')).toEqual(expect.arrayContaining(['model_messages']));
    expect(await columnsOf(db, 'workflow_step_instances')).not.toContain('messages');
    expect(await columnsOf(db, 'workflow_runs')).toEqual(expect.arrayContaining(['conversation_messages']));
    const [step] = (await db.query('SELECT model_messages, execution_index FROM workflow_step_instances WHERE uuid = ?', [STEP])) as {
      model_messages: string;
      execution_index: number;
    }[];
    const [run] = (await db.query('SELECT conversation_messages FROM workflow_runs WHERE uuid = ?', [RUN])) as {
      conversation_messages: string;
    }[];
    expect(JSON.parse(step.model_messages)).toEqual(stepMessages);
    expect(step.execution_index).toBe(3);
    const indexed = (await db.query(
      "SELECT COLUMN_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = 'idx_step_instances_parent' ORDER BY SEQ_IN_INDEX",
    )) as { name: string }[];
    expect(indexed.map(({ name }) => name)).toEqual(['parent_instance_uuid', 'execution_index']);
    expect(JSON.parse(run.conversation_messages)).toEqual(conversation);
    await expect(db.query('UPDATE workflow_step_instances SET model_messages = ? WHERE uuid = ?', ['not json', STEP])).rejects.toThrow(
      /CONSTRAINT|check/i,
    );
    await expect(db.query('UPDATE workflow_runs SET conversation_messages = ? WHERE uuid = ?', ['not json', RUN])).rejects.toThrow(
      /CONSTRAINT|check/i,
    );
  });

  it('gives the old names back on the way down, with their data', async () => {
    await db.undoLastMigration({ transaction: 'each' });

    const [step] = (await db.query('SELECT messages, iteration FROM workflow_step_instances WHERE uuid = ?', [STEP])) as {
      messages: string;
      iteration: number;
    }[];
    const [run] = (await db.query('SELECT messages FROM workflow_runs WHERE uuid = ?', [RUN])) as { messages: string }[];
    expect(JSON.parse(step.messages)).toEqual(stepMessages);
    expect(step.iteration).toBe(3);
    expect(JSON.parse(run.messages)).toEqual(conversation);
    await expect(db.query('UPDATE workflow_step_instances SET messages = ? WHERE uuid = ?', ['not json', STEP])).rejects.toThrow(
      /CONSTRAINT|check/i,
    );
  });
});
