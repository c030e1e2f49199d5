import type { MigrationInterface, QueryRunner } from 'typeorm';

// Run-end notifications: where and when to POST, the per-workflow signing secret, and on each run the
// record of its delivery.
export class Notifications1763800300000 implements MigrationInterface {
  name = 'Notifications1763800300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflows
      ADD COLUMN notify_url TEXT NULL,
      ADD COLUMN notify_on_complete TINYINT(1) NOT NULL DEFAULT 0,
      ADD COLUMN notify_on_failure TINYINT(1) NOT NULL DEFAULT 1,
      ADD COLUMN notify_secret VARCHAR(100) NULL`);
    await db.query("UPDATE workflows SET notify_secret = CONCAT('nsec_', REPLACE(UUID(), '-', ''), REPLACE(UUID(), '-', ''))");
    await db.query(
      'ALTER TABLE workflow_runs ADD COLUMN notification LONGTEXT NULL CHECK (notification IS NULL OR JSON_VALID(notification))',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN notification');
    await db.query(
      'ALTER TABLE workflows DROP COLUMN notify_url, DROP COLUMN notify_on_complete, DROP COLUMN notify_on_failure, DROP COLUMN notify_secret',
    );
  }
}
