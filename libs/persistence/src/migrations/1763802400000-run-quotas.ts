import type { MigrationInterface, QueryRunner } from 'typeorm';

// Runs in flight per user, counted on one row per user: a start takes a place with a conditional UPDATE
// (exact however many starts race), the update that ends a run gives it back.
export class RunQuotas1763802400000 implements MigrationInterface {
  name = 'RunQuotas1763802400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE user_quotas (
      user_id VARCHAR(191) NOT NULL PRIMARY KEY,
      runs_in_flight INT NOT NULL DEFAULT 0
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`INSERT INTO user_quotas (user_id, runs_in_flight)
      SELECT user_id, COUNT(*) FROM workflow_runs WHERE status IN ('running', 'awaiting_input') GROUP BY user_id`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE user_quotas');
  }
}
