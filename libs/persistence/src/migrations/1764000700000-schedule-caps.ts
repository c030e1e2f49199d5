import type { MigrationInterface, QueryRunner } from 'typeorm';

// A schedule's create counts the user's schedules (SCHEDULES_MAX_PER_USER): by index, not by a scan of
// every user's.
export class ScheduleCaps1764000700000 implements MigrationInterface {
  name = 'ScheduleCaps1764000700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE schedules ADD INDEX idx_schedules_user (user_id, workflow_uuid)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE schedules DROP INDEX idx_schedules_user');
  }
}
