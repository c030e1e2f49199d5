import type { MigrationInterface, QueryRunner } from 'typeorm';

// Webhook secrets sealed at rest (a sealed value is longer than the secret), and the signatures already
// accepted, so a captured delivery cannot be replayed within the timestamp tolerance.
export class WebhookSecurity1763802300000 implements MigrationInterface {
  name = 'WebhookSecurity1763802300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE trigger_secrets MODIFY secret VARCHAR(400) NOT NULL');
    await db.query('ALTER TABLE workflows MODIFY notify_secret VARCHAR(400) NULL');
    await db.query(`CREATE TABLE webhook_signatures (
      trigger_uuid CHAR(36) NOT NULL,
      signature CHAR(64) NOT NULL,
      received_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (trigger_uuid, signature),
      INDEX idx_webhook_signatures_received (received_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE webhook_signatures');
  }
}
