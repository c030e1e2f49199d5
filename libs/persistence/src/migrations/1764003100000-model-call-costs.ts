import type { MigrationInterface, QueryRunner } from 'typeorm';

// What a run costs: each model call's cost in dollars at the configured prices (null: its model has no
// price) and the prompt tokens the provider served from its cache; a step's and a run's sums beside their
// tokens. Calls recorded before have no cost.
export class ModelCallCosts1764003100000 implements MigrationInterface {
  name = 'ModelCallCosts1764003100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE model_calls ADD COLUMN cached_tokens INT NOT NULL DEFAULT 0 AFTER completion_tokens, ADD COLUMN cost DECIMAL(20,9) NULL AFTER total_tokens',
    );
    await db.query('ALTER TABLE workflow_step_instances ADD COLUMN cost DECIMAL(20,9) NULL AFTER total_tokens');
    await db.query('ALTER TABLE workflow_runs ADD COLUMN cost DECIMAL(20,9) NULL AFTER total_tokens');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN cost');
    await db.query('ALTER TABLE workflow_step_instances DROP COLUMN cost');
    await db.query('ALTER TABLE model_calls DROP COLUMN cost, DROP COLUMN cached_tokens');
  }
}
