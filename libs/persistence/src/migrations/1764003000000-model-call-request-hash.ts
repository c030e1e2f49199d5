import type { MigrationInterface, QueryRunner } from 'typeorm';

// Each model call records the canonical hash of its request (libs/domain requestHash): a replay answers a
// call from a recorded one with the same hash, by run; null on calls recorded before.
export class ModelCallRequestHash1764003000000 implements MigrationInterface {
  name = 'ModelCallRequestHash1764003000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE model_calls ADD COLUMN request_hash CHAR(64) NULL AFTER model');
    await db.query('CREATE INDEX idx_model_calls_run_request ON model_calls (run_uuid, request_hash)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX idx_model_calls_run_request ON model_calls');
    await db.query('ALTER TABLE model_calls DROP COLUMN request_hash');
  }
}
