import type { MigrationInterface, QueryRunner } from 'typeorm';

// Each reservation a model call holds in a spend ledger, with when it expires: a worker that dies mid-call
// leaves its hold, which the user's (or the run's) next reservation gives back once expired, or at once when
// it is the same call's next attempt. A hold is either a user's (the periods it is in) or a run's (max_cost).
export class SpendHolds1764005200000 implements MigrationInterface {
  name = 'SpendHolds1764005200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE spend_holds (
      id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
      user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      run_uuid CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      call_key VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      periods VARCHAR(30) NOT NULL DEFAULT '',
      amount DECIMAL(20,9) NOT NULL,
      expires_at DATETIME(3) NOT NULL,
      INDEX idx_spend_holds_user (user_id, expires_at),
      INDEX idx_spend_holds_run (run_uuid, expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE spend_holds');
  }
}
