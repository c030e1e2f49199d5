import type { MigrationInterface, QueryRunner } from 'typeorm';

// A workflow's budget (tokens, dollars): what each of its runs starts with unless its start names one.
export class WorkflowBudgets1764004220000 implements MigrationInterface {
  name = 'WorkflowBudgets1764004220000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows ADD COLUMN budget LONGTEXT NULL CHECK (budget IS NULL OR JSON_VALID(budget))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows DROP COLUMN budget');
  }
}
