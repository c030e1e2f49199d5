import type { MigrationInterface, QueryRunner } from 'typeorm';

// The opt-in response cache: a call answered from an earlier one names it (cached_from), and the earlier
// ones are found by request hash and age.
export class ModelCallCache1764003710000 implements MigrationInterface {
  name = 'ModelCallCache1764003710000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE model_calls ADD COLUMN cached_from CHAR(36) NULL AFTER cost');
    await db.query('CREATE INDEX idx_model_calls_request ON model_calls (request_hash, finished_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX idx_model_calls_request ON model_calls');
    await db.query('ALTER TABLE model_calls DROP COLUMN cached_from');
  }
}
