import type { MigrationInterface, QueryRunner } from 'typeorm';

// Workflows that compose: a workflow may declare the trigger data its runs take when a sub_workflow step
// starts them (input_schema); a run such a step started names the step (parent_step_uuid) beside the run
// that started it (parent_run_uuid, which a resumed run also uses: a child is told by its step).
export class SubWorkflows1764004100000 implements MigrationInterface {
  name = 'SubWorkflows1764004100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE workflows ADD COLUMN input_schema LONGTEXT NULL CHECK (input_schema IS NULL OR JSON_VALID(input_schema)) AFTER output_history_size',
    );
    await db.query('ALTER TABLE workflow_runs ADD COLUMN parent_step_uuid CHAR(36) NULL AFTER parent_run_uuid');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN parent_step_uuid');
    await db.query('ALTER TABLE workflows DROP COLUMN input_schema');
  }
}
