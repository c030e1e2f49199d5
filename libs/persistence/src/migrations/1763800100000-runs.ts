import type { MigrationInterface, QueryRunner } from 'typeorm';

// Runs and their full audit: step instances, outputs, one row per model call attempt and per tool call
// attempt, and the tool registry. JSON columns are LONGTEXT checked with JSON_VALID (MySQL 8 and MariaDB).
const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
const TOKENS = `prompt_tokens INT NOT NULL DEFAULT 0, completion_tokens INT NOT NULL DEFAULT 0, total_tokens INT NOT NULL DEFAULT 0`;
const json = (column: string, nullable = true) =>
  `${column} LONGTEXT ${nullable ? 'NULL' : 'NOT NULL'} CHECK (${column} IS NULL OR JSON_VALID(${column}))`;

export class Runs1763800100000 implements MigrationInterface {
  name = 'Runs1763800100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE workflow_runs (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      workflow_uuid CHAR(36) NOT NULL,
      workflow_name VARCHAR(200) NOT NULL,
      status VARCHAR(20) NOT NULL,
      ${json('definition', false)},
      trigger_output_id CHAR(36) NULL,
      temporal_workflow_id VARCHAR(100) NOT NULL,
      error_message TEXT NULL,
      ${TOKENS},
      started_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      finished_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      INDEX idx_runs_user_status (user_id, status, created_at),
      INDEX idx_runs_workflow (workflow_uuid, created_at)
    ) ${TABLE}`);
    await db.query(`CREATE TABLE workflow_step_instances (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      run_uuid CHAR(36) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      step_definition_uuid CHAR(36) NOT NULL,
      step_name VARCHAR(200) NOT NULL,
      step_type VARCHAR(40) NOT NULL,
      position INT NOT NULL,
      status VARCHAR(20) NOT NULL,
      ${json('input_data')},
      ${json('messages')},
      output_id CHAR(36) NULL,
      error_message TEXT NULL,
      attempts INT NOT NULL DEFAULT 0,
      ${TOKENS},
      duration_ms INT NULL,
      started_at DATETIME(3) NULL,
      finished_at DATETIME(3) NULL,
      INDEX idx_step_instances_run (run_uuid, position),
      INDEX idx_step_instances_output (output_id),
      CONSTRAINT fk_step_instances_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ${TABLE}`);
    await db.query(`CREATE TABLE step_outputs (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      run_uuid CHAR(36) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      step_instance_uuid CHAR(36) NULL,
      ${json('raw_data', false)},
      summary TEXT NOT NULL,
      markdown_representation LONGTEXT NULL,
      size_bytes INT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      INDEX idx_outputs_run (run_uuid),
      CONSTRAINT fk_outputs_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ${TABLE}`);
    await db.query(`CREATE TABLE model_calls (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      run_uuid CHAR(36) NOT NULL,
      step_instance_uuid CHAR(36) NOT NULL,
      turn INT NOT NULL,
      attempt INT NOT NULL,
      model VARCHAR(200) NOT NULL,
      status VARCHAR(20) NOT NULL,
      error_message TEXT NULL,
      ${json('request')},
      ${json('response')},
      ${TOKENS},
      duration_ms INT NULL,
      started_at DATETIME(3) NOT NULL,
      finished_at DATETIME(3) NULL,
      UNIQUE KEY uq_model_calls_attempt (step_instance_uuid, turn, attempt),
      INDEX idx_model_calls_run (run_uuid),
      CONSTRAINT fk_model_calls_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ${TABLE}`);
    await db.query(`CREATE TABLE tool_calls (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      run_uuid CHAR(36) NOT NULL,
      step_instance_uuid CHAR(36) NOT NULL,
      tool_call_id VARCHAR(200) NOT NULL,
      attempt INT NOT NULL,
      tool_name VARCHAR(200) NOT NULL,
      ${json('input')},
      ${json('output')},
      status VARCHAR(20) NOT NULL,
      error_message TEXT NULL,
      duration_ms INT NULL,
      started_at DATETIME(3) NOT NULL,
      finished_at DATETIME(3) NULL,
      UNIQUE KEY uq_tool_calls_attempt (step_instance_uuid, tool_call_id, attempt),
      INDEX idx_tool_calls_run (run_uuid),
      CONSTRAINT fk_tool_calls_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ${TABLE}`);
    await db.query(`CREATE TABLE tools (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      name VARCHAR(64) NOT NULL,
      description TEXT NOT NULL,
      ${json('parameters', false)},
      transport VARCHAR(20) NOT NULL,
      endpoint_url TEXT NULL,
      timeout_ms INT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_tools_user_name (user_id, name)
    ) ${TABLE}`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['tools', 'tool_calls', 'model_calls', 'step_outputs', 'workflow_step_instances', 'workflow_runs']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
