import type { MigrationInterface, QueryRunner } from 'typeorm';
import { definitionHash } from '@app/domain';
import type { WorkflowDefinition } from '@app/contracts';

// Definition versions (#30): every save of a workflow writes an immutable version (its definition, content
// hash, who and when, an optional change description); the workflow row names its current version and a run
// the version it ran. Each workflow saved before this gets version 1, its definition as it stands.
export class WorkflowVersions1764003500000 implements MigrationInterface {
  name = 'WorkflowVersions1764003500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE workflow_versions (
      workflow_uuid CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      version INT NOT NULL,
      user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      definition LONGTEXT NOT NULL CHECK (JSON_VALID(definition)),
      content_hash CHAR(64) NOT NULL,
      change_description VARCHAR(500) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (workflow_uuid, version),
      CONSTRAINT fk_workflow_versions_workflow FOREIGN KEY (workflow_uuid) REFERENCES workflows (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query('ALTER TABLE workflows ADD COLUMN version INT NOT NULL DEFAULT 1');
    await db.query('ALTER TABLE workflow_runs ADD COLUMN workflow_version INT NULL');
    for (let after = ''; ;) {
      const workflows = (await db.query('SELECT * FROM workflows WHERE uuid > ? ORDER BY uuid LIMIT 200', [after])) as Row[];
      if (!workflows.length) break;
      for (const workflow of workflows) await backfill(db, workflow);
      after = workflows[workflows.length - 1].uuid as string;
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs DROP COLUMN workflow_version');
    await db.query('ALTER TABLE workflows DROP COLUMN version');
    await db.query('DROP TABLE workflow_versions');
  }
}

type Row = Record<string, unknown>;

const parsed = (text: unknown) => (typeof text === 'string' ? JSON.parse(text) : text);

/** Version 1 of a workflow: its definition assembled from its rows as they were when versions began. */
async function backfill(db: QueryRunner, workflow: Row): Promise<void> {
  const steps = (await db.query('SELECT uuid, name, type, details FROM workflow_steps WHERE workflow_uuid = ?', [workflow.uuid])) as Row[];
  const [trigger] = (await db.query('SELECT uuid, type, details FROM triggers WHERE workflow_uuid = ?', [workflow.uuid])) as Row[];
  const byUuid = new Map(steps.map((step) => [step.uuid, { ...parsed(step.details), uuid: step.uuid, name: step.name, type: step.type }]));
  const triggerDetails = trigger ? parsed(trigger.details) : null;
  const definition = {
    uuid: workflow.uuid,
    name: workflow.name,
    description: workflow.description,
    is_active: Number(workflow.is_active) === 1,
    status: workflow.status,
    notify_url: workflow.notify_url,
    notify_on_complete: Number(workflow.notify_on_complete) === 1,
    notify_on_failure: Number(workflow.notify_on_failure) === 1,
    tool_drift: workflow.tool_drift,
    ...(workflow.output_history_size !== null ? { output_history_size: workflow.output_history_size } : {}),
    steps: (parsed(workflow.steps) as string[]).flatMap((uuid) => (byUuid.has(uuid) ? [byUuid.get(uuid)] : [])),
    trigger: trigger
      ? {
          uuid: trigger.uuid,
          type: trigger.type,
          filter_rules: triggerDetails.filter_rules ?? {},
          initial_data_description: triggerDetails.initial_data_description ?? '',
        }
      : null,
    graph: parsed(workflow.graph) ?? null,
  } as WorkflowDefinition;
  await db.query(
    'INSERT INTO workflow_versions (workflow_uuid, version, user_id, definition, content_hash, change_description, created_at) VALUES (?, 1, ?, ?, ?, ?, ?)',
    [
      workflow.uuid,
      workflow.user_id,
      JSON.stringify(definition),
      definitionHash(definition),
      'the workflow as it was when versions began',
      workflow.updated_at,
    ],
  );
}
