import type { MigrationInterface, QueryRunner } from 'typeorm';

// A run's token budget and, while the run waits for an approval, the tokens it had used.
export class RunBudgets1763802500000 implements MigrationInterface {
  name = 'RunBudgets1763802500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN budget LONGTEXT NULL CHECK (budget IS NULL OR JSON_VALID(budget))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN budget');
  }
}
