import type { MigrationInterface, QueryRunner } from 'typeorm';

// A run's own spend ledger, kept for runs with a budget in dollars (max_cost): what its calls cost and what its
// calls in flight reserved (their worst case), so parallel calls pass max_cost by at most one call's worst
// case. Runs in flight start from what their completed calls already cost.
export class RunSpendLedger1764004500000 implements MigrationInterface {
  name = 'RunSpendLedger1764004500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE workflow_runs ADD COLUMN cost_spent DECIMAL(20,9) NOT NULL DEFAULT 0, ADD COLUMN cost_reserved DECIMAL(20,9) NOT NULL DEFAULT 0',
    );
    await db.query(
      `UPDATE workflow_runs r SET cost_spent = (SELECT COALESCE(SUM(m.cost), 0) FROM model_calls m WHERE m.run_uuid = r.uuid AND m.status = 'completed')
       WHERE r.status IN ('running', 'awaiting_input') AND r.budget IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN cost_spent, DROP COLUMN cost_reserved');
  }
}
