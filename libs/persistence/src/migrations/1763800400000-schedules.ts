import type { MigrationInterface, QueryRunner } from 'typeorm';

// Schedules live in Temporal; this table says whose each one is and what timing it was given (Temporal
// describes crons back as calendars), and runs say which schedule started them.
export class Schedules1763800400000 implements MigrationInterface {
  name = 'Schedules1763800400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE schedules (
      id VARCHAR(100) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      workflow_uuid CHAR(36) NOT NULL,
      schedule_type VARCHAR(20) NOT NULL,
      timing LONGTEXT NOT NULL CHECK (JSON_VALID(timing)),
      note TEXT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      INDEX idx_schedules_workflow (workflow_uuid)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query('ALTER TABLE workflow_runs ADD COLUMN schedule_id VARCHAR(100) NULL, ADD INDEX idx_runs_schedule (schedule_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP INDEX idx_runs_schedule, DROP COLUMN schedule_id');
    await db.query('DROP TABLE schedules');
  }
}
