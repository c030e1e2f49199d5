import type { MigrationInterface, QueryRunner } from 'typeorm';

// Several model providers: each model call records which one served it (null on calls made before).
export class ModelCallProvider1764000300000 implements MigrationInterface {
  name = 'ModelCallProvider1764000300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE model_calls ADD COLUMN provider VARCHAR(40) NULL AFTER attempt');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE model_calls DROP COLUMN provider');
  }
}
