import type { MigrationInterface, QueryRunner } from 'typeorm';

// One word per concept: a step's chat messages (an LLM step's, an agent's transcript) and a conversational
// run's messages were both columns called `messages`, and a row beneath a step's row was an `iteration` even
// when it is a graph step's execution. Each is now named for what it holds (the API keeps its field names).
export class ConceptNames1764000500000 implements MigrationInterface {
  name = 'ConceptNames1764000500000';

  async up(db: QueryRunner): Promise<void> {
    await renameJsonColumn(db, 'workflow_step_instances', 'messages', 'model_messages');
    await renameJsonColumn(db, 'workflow_runs', 'messages', 'conversation_messages');
    await db.query('ALTER TABLE workflow_step_instances RENAME COLUMN iteration TO execution_index');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_step_instances RENAME COLUMN execution_index TO iteration');
    await renameJsonColumn(db, 'workflow_runs', 'conversation_messages', 'messages');
    await renameJsonColumn(db, 'workflow_step_instances', 'model_messages', 'messages');
  }
}

/** MySQL 8's ER_DEPENDENT_BY_CHECK_CONSTRAINT: it refuses to rename a column that a CHECK uses. */
const CHECK_USES_COLUMN = 3959;

/**
 * Renames a nullable LONGTEXT column that holds JSON. MariaDB renames it with its column CHECK; MySQL 8
 * refuses while its JSON_VALID CHECK names the old column, so there the CHECK is dropped, the column renamed
 * and the CHECK added back on the new name: three plain statements, each a form both servers document.
 */
async function renameJsonColumn(db: QueryRunner, table: string, from: string, to: string): Promise<void> {
  try {
    await db.query(`ALTER TABLE ${table} RENAME COLUMN ${from} TO ${to}`);
  } catch (error) {
    if ((error as { driverError?: { errno?: number } }).driverError?.errno !== CHECK_USES_COLUMN) throw error;
    const checks = (await db.query(
      `SELECT tc.CONSTRAINT_NAME AS name FROM information_schema.TABLE_CONSTRAINTS tc
       JOIN information_schema.CHECK_CONSTRAINTS cc ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
       WHERE tc.TABLE_SCHEMA = DATABASE() AND tc.TABLE_NAME = ? AND tc.CONSTRAINT_TYPE = 'CHECK' AND cc.CHECK_CLAUSE LIKE ?`,
      [table, `%\`${from}\`%`],
    )) as { name: string }[];
    for (const { name } of checks) await db.query(`ALTER TABLE ${table} DROP CHECK \`${name}\``);
    await db.query(`ALTER TABLE ${table} RENAME COLUMN ${from} TO ${to}`);
    await db.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_${to}_json CHECK (${to} IS NULL OR JSON_VALID(${to}))`);
  }
}
