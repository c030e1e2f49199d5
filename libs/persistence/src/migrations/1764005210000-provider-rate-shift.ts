import type { MigrationInterface, QueryRunner } from 'typeorm';

// How far a provider account's 429s have pushed its schedule in all (milliseconds): a call that booked its slot
// before a 429 compares it with what it was at its booking and waits that much more, so slots booked ahead move
// past the provider's retry-after with the rest of the schedule. And the milliseconds the account's 429s taught
// the limiter to add to each interval: requests reach the provider with some jitter, which a limit configured
// at the provider's own rate has no room for.
export class ProviderRateShift1764005210000 implements MigrationInterface {
  name = 'ProviderRateShift1764005210000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE provider_rates ADD COLUMN shifted_ms BIGINT NOT NULL DEFAULT 0, ADD COLUMN slack_ms DOUBLE NOT NULL DEFAULT 0',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE provider_rates DROP COLUMN shifted_ms, DROP COLUMN slack_ms');
  }
}
