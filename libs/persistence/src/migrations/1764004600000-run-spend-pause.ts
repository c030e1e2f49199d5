import type { MigrationInterface, QueryRunner } from 'typeorm';

// Why a run waits on its user's spend limit (SPEND_LIMIT_REACHED: the period, its limit, when it resets),
// written by the model call that found no room and cleared by the call that goes once it has room again.
export class RunSpendPause1764004600000 implements MigrationInterface {
  name = 'RunSpendPause1764004600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN spend_pause LONGTEXT NULL CHECK (spend_pause IS NULL OR JSON_VALID(spend_pause))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN spend_pause');
  }
}
