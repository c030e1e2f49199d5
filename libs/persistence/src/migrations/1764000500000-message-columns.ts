import type { MigrationInterface, QueryRunner } from 'typeorm';

// One word per concept: an agent step's model messages and a conversational run's messages were both in
// columns called `messages`. The API keeps its field names; only the columns say which is which.
// CHANGE COLUMN restates the JSON check: MariaDB's RENAME COLUMN can leave the check naming the old column.
const jsonColumn = (table: string, from: string, to: string): string =>
  `ALTER TABLE ${table} CHANGE COLUMN ${from} ${to} LONGTEXT NULL CHECK (${to} IS NULL OR JSON_VALID(${to}))`;

export class MessageColumns1764000500000 implements MigrationInterface {
  name = 'MessageColumns1764000500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(jsonColumn('workflow_step_instances', 'messages', 'agent_messages'));
    await db.query(jsonColumn('workflow_runs', 'messages', 'conversation_messages'));
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(jsonColumn('workflow_runs', 'conversation_messages', 'messages'));
    await db.query(jsonColumn('workflow_step_instances', 'agent_messages', 'messages'));
  }
}
