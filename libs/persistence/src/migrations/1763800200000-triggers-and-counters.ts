import type { MigrationInterface, QueryRunner } from 'typeorm';

// Run counters per workflow (kept exact by atomic increments), webhook secrets (apart from trigger rows,
// which definition edits rewrite) and the log of webhook deliveries.
export class TriggersAndCounters1763800200000 implements MigrationInterface {
  name = 'TriggersAndCounters1763800200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflows
      ADD COLUMN total_runs INT NOT NULL DEFAULT 0,
      ADD COLUMN successful_runs INT NOT NULL DEFAULT 0,
      ADD COLUMN failed_runs INT NOT NULL DEFAULT 0`);
    await db.query(`CREATE TABLE trigger_secrets (
      trigger_uuid CHAR(36) NOT NULL PRIMARY KEY,
      secret VARCHAR(100) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE trigger_events (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      trigger_uuid CHAR(36) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      delivery_key VARCHAR(200) NULL,
      matched TINYINT(1) NOT NULL,
      run_uuid CHAR(36) NULL,
      body LONGTEXT NULL CHECK (body IS NULL OR JSON_VALID(body)),
      received_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      INDEX idx_trigger_events_trigger (trigger_uuid, received_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE trigger_events');
    await db.query('DROP TABLE trigger_secrets');
    await db.query('ALTER TABLE workflows DROP COLUMN total_runs, DROP COLUMN successful_runs, DROP COLUMN failed_runs');
  }
}
