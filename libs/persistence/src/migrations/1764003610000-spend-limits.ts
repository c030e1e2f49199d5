import type { MigrationInterface, QueryRunner } from 'typeorm';

// Spend limits in dollars: the ledger of what each user's model calls cost and what calls in flight reserved,
// per UTC day and month, and a user's own limits (lower than the operator's) beside their runs in flight.
export class SpendLimits1764003610000 implements MigrationInterface {
  name = 'SpendLimits1764003610000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE user_spend (
      user_id VARCHAR(191) NOT NULL,
      period VARCHAR(10) NOT NULL,
      spent DECIMAL(20,9) NOT NULL DEFAULT 0,
      reserved DECIMAL(20,9) NOT NULL DEFAULT 0,
      PRIMARY KEY (user_id, period)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(
      'ALTER TABLE user_quotas ADD COLUMN daily_spend_limit DECIMAL(20,9) NULL, ADD COLUMN monthly_spend_limit DECIMAL(20,9) NULL',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE user_quotas DROP COLUMN daily_spend_limit, DROP COLUMN monthly_spend_limit');
    await db.query('DROP TABLE user_spend');
  }
}
