import type { MigrationInterface, QueryRunner } from 'typeorm';

// One word per concept: an agent step's model messages and a conversational run's messages were both in
// columns called `messages`. The API keeps its field names; only the columns say which is which.
export class MessageColumns1764000500000 implements MigrationInterface {
  name = 'MessageColumns1764000500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_step_instances RENAME COLUMN messages TO agent_messages');
    await db.query('ALTER TABLE workflow_runs RENAME COLUMN messages TO conversation_messages');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs RENAME COLUMN conversation_messages TO messages');
    await db.query('ALTER TABLE workflow_step_instances RENAME COLUMN agent_messages TO messages');
  }
}
