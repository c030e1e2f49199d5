import type { MigrationInterface, QueryRunner } from 'typeorm';

// Each model call names its run's user, indexed with its start: a usage report reads the calls of its range
// (user_id, started_at) instead of every call of every run the user ever made. Filled by a trigger from the
// run's row (a run's user never changes), so no writer of model_calls has to know it; calls before it backfilled.
export class ModelCallUser1764005220000 implements MigrationInterface {
  name = 'ModelCallUser1764005220000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE model_calls ADD COLUMN user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
       ADD INDEX idx_model_calls_user_started (user_id, started_at)`,
    );
    await db.query(`CREATE TRIGGER model_calls_user BEFORE INSERT ON model_calls FOR EACH ROW
      SET NEW.user_id = (SELECT r.user_id FROM workflow_runs r WHERE r.uuid = NEW.run_uuid)`);
    await db.query('UPDATE model_calls m JOIN workflow_runs r ON r.uuid = m.run_uuid SET m.user_id = r.user_id');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TRIGGER IF EXISTS model_calls_user');
    await db.query('ALTER TABLE model_calls DROP INDEX idx_model_calls_user_started, DROP COLUMN user_id');
  }
}
