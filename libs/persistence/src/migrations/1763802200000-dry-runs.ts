import type { MigrationInterface, QueryRunner } from 'typeorm';

// Dry runs: the real workflow on Temporal with the built-in dry-run model and no tool side effects.
export class DryRuns1763802200000 implements MigrationInterface {
  name = 'DryRuns1763802200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN dry_run TINYINT(1) NOT NULL DEFAULT 0');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN dry_run');
  }
}
