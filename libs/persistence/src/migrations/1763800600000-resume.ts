import type { MigrationInterface, QueryRunner } from 'typeorm';

// Resume from a step: a run links to the run it resumes, and a step carried over from it says where from.
export class Resume1763800600000 implements MigrationInterface {
  name = 'Resume1763800600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflow_runs
      ADD COLUMN parent_run_uuid CHAR(36) NULL,
      ADD COLUMN resumed_from_step_uuid CHAR(36) NULL,
      ADD INDEX idx_runs_parent (parent_run_uuid)`);
    await db.query('ALTER TABLE workflow_step_instances ADD COLUMN carried_from_run_uuid CHAR(36) NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_step_instances DROP COLUMN carried_from_run_uuid');
    await db.query('ALTER TABLE workflow_runs DROP INDEX idx_runs_parent, DROP COLUMN resumed_from_step_uuid, DROP COLUMN parent_run_uuid');
  }
}
