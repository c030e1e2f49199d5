import type { MigrationInterface, QueryRunner } from 'typeorm';

// The tool manifest saved with each workflow (its agents' tools and their sha256), what a run does when
// the tools changed since (tool_drift: fail or warn), and on each run the drift it started with.
// Workflows saved before keep a NULL manifest: their runs compare nothing until they are saved again.
export class ToolManifest1763800800000 implements MigrationInterface {
  name = 'ToolManifest1763800800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workflows
      ADD COLUMN tool_manifest LONGTEXT NULL CHECK (tool_manifest IS NULL OR JSON_VALID(tool_manifest)),
      ADD COLUMN tool_manifest_hash CHAR(64) NULL,
      ADD COLUMN tool_drift VARCHAR(10) NOT NULL DEFAULT 'warn'`);
    await db.query('ALTER TABLE workflow_runs ADD COLUMN tool_drift LONGTEXT NULL CHECK (tool_drift IS NULL OR JSON_VALID(tool_drift))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN tool_drift');
    await db.query('ALTER TABLE workflows DROP COLUMN tool_manifest, DROP COLUMN tool_manifest_hash, DROP COLUMN tool_drift');
  }
}
