import type { MigrationInterface, QueryRunner } from 'typeorm';

// The provider limiter every worker shares: per provider account the next free request slot, the tokens
// booked ahead and a provider's asked-for pause (milliseconds of the database's clock); per user their
// latest booked slot (fairness between users).
export class ProviderRates1764004210000 implements MigrationInterface {
  name = 'ProviderRates1764004210000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE provider_rates (
      rate_key VARCHAR(100) NOT NULL PRIMARY KEY,
      next_request_at BIGINT NOT NULL DEFAULT 0,
      next_token_at BIGINT NOT NULL DEFAULT 0,
      blocked_until BIGINT NOT NULL DEFAULT 0
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE provider_rate_users (
      rate_key VARCHAR(100) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      latest_slot BIGINT NOT NULL,
      PRIMARY KEY (rate_key, user_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE provider_rate_users');
    await db.query('DROP TABLE provider_rates');
  }
}
