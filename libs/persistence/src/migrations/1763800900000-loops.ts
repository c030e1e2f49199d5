import type { MigrationInterface, QueryRunner } from 'typeorm';

// Loops owned by code: each iteration of a looping step is its own step-instance row under the step's row
// (parent_instance_uuid, iteration), the step's row records how its loop ended (loop_state), and a workflow
// says how many of a step's latest outputs history references reach (output_history_size, NULL: 5).
export class Loops1763800900000 implements MigrationInterface {
  name = 'Loops1763800900000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflow_step_instances
      ADD COLUMN parent_instance_uuid CHAR(36) NULL,
      ADD COLUMN iteration INT NULL,
      ADD COLUMN loop_state LONGTEXT NULL CHECK (loop_state IS NULL OR JSON_VALID(loop_state)),
      ADD INDEX idx_step_instances_parent (parent_instance_uuid, iteration)`);
    await db.query('ALTER TABLE workflows ADD COLUMN output_history_size INT NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows DROP COLUMN output_history_size');
    await db.query(
      'ALTER TABLE workflow_step_instances DROP INDEX idx_step_instances_parent, DROP COLUMN parent_instance_uuid, DROP COLUMN iteration, DROP COLUMN loop_state',
    );
  }
}
