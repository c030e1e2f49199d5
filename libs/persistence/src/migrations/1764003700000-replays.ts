import type { MigrationInterface, QueryRunner } from 'typeorm';

// Replays (POST /runs/{uuid}/replay): a run says which run it replays and whether unrecorded model calls go to
// the dry-run model (offline); a call answered from the record names the recorded call it was answered from;
// a registered tool says whether calling it again is harmless (side_effect_free: a replay may call it anew).
export class Replays1764003700000 implements MigrationInterface {
  name = 'Replays1764003700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN replay_of CHAR(36) NULL, ADD COLUMN replay_offline TINYINT NOT NULL DEFAULT 0');
    await db.query('CREATE INDEX idx_workflow_runs_replay_of ON workflow_runs (replay_of)');
    await db.query('ALTER TABLE model_calls ADD COLUMN replayed_from CHAR(36) NULL');
    await db.query('ALTER TABLE tool_calls ADD COLUMN replayed_from CHAR(36) NULL');
    await db.query('CREATE INDEX idx_tool_calls_run_tool ON tool_calls (run_uuid, tool_name)');
    await db.query('ALTER TABLE tools ADD COLUMN side_effect_free TINYINT NOT NULL DEFAULT 0');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tools DROP COLUMN side_effect_free');
    await db.query('DROP INDEX idx_tool_calls_run_tool ON tool_calls');
    await db.query('ALTER TABLE tool_calls DROP COLUMN replayed_from');
    await db.query('ALTER TABLE model_calls DROP COLUMN replayed_from');
    await db.query('DROP INDEX idx_workflow_runs_replay_of ON workflow_runs');
    await db.query('ALTER TABLE workflow_runs DROP COLUMN replay_offline, DROP COLUMN replay_of');
  }
}
