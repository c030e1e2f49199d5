import type { MigrationInterface, QueryRunner } from 'typeorm';

// Assistant sessions stay open after a save and after a failure a message can fix (#34): whether one takes
// messages (is_open), the fingerprint of the workflow its generation started from (a save refuses to
// overwrite an edit made elsewhere meanwhile), and what a failed turn leaves for the next (failed_attempt).
// Sessions that ended before (saved, failed, or idle past the day their workflow waited) are closed.
export class AssistantOpenSessions1764000800000 implements MigrationInterface {
  name = 'AssistantOpenSessions1764000800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflow_agent_states
      ADD COLUMN is_open TINYINT(1) NOT NULL DEFAULT 1,
      ADD COLUMN base_fingerprint CHAR(64) NULL,
      ADD COLUMN failed_attempt LONGTEXT NULL CHECK (failed_attempt IS NULL OR JSON_VALID(failed_attempt))`);
    await db.query(`UPDATE workflow_agent_states SET is_open = 0, updated_at = updated_at
      WHERE stage IN ('completed', 'failed') OR updated_at < CURRENT_TIMESTAMP(3) - INTERVAL 1 DAY`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_agent_states DROP COLUMN failed_attempt, DROP COLUMN base_fingerprint, DROP COLUMN is_open');
  }
}
