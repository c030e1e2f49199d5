import type { MigrationInterface, QueryRunner } from 'typeorm';

// A step's generated_summary (a one-sentence description of what it does), one row per LLM or agent step: kept apart from workflow_steps, whose rows
// every save rewrites, so a summary outlives edits that do not touch its prompt or tools.
export class StepSummaries1763802100000 implements MigrationInterface {
  name = 'StepSummaries1763802100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE step_summaries (
      step_uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      source_hash CHAR(64) NOT NULL,
      status VARCHAR(16) NOT NULL,
      summary TEXT NULL,
      error_message TEXT NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE step_summaries');
  }
}
