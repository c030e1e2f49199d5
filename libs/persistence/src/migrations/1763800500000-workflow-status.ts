import type { MigrationInterface, QueryRunner } from 'typeorm';

// A workflow's lifecycle (active, paused, archived): paused pauses its schedules, archived also refuses new runs.
export class WorkflowStatus1763800500000 implements MigrationInterface {
  name = 'WorkflowStatus1763800500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query("ALTER TABLE workflows ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT 'active'");
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows DROP COLUMN status');
  }
}
