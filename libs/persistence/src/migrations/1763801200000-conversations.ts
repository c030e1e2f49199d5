import type { MigrationInterface, QueryRunner } from 'typeorm';

// Conversational runs: the transcript of user messages and replies, on the run (null for other runs).
export class Conversations1763801200000 implements MigrationInterface {
  name = 'Conversations1763801200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN messages LONGTEXT NULL CHECK (messages IS NULL OR JSON_VALID(messages))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN messages');
  }
}
