import type { MigrationInterface, QueryRunner } from 'typeorm';

// Workflow definitions (workflows, their steps and tools) and API keys. JSON columns are LONGTEXT with a JSON_VALID check:
// the same DDL runs on MySQL 8 and MariaDB 10.11 (where JSON is an alias of LONGTEXT anyway).
export class Definitions1763800000000 implements MigrationInterface {
  name = 'Definitions1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE workflows (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      name VARCHAR(200) NOT NULL,
      description TEXT NOT NULL,
      is_active TINYINT(1) NOT NULL DEFAULT 1,
      trigger_uuid CHAR(36) NULL,
      steps LONGTEXT NOT NULL CHECK (JSON_VALID(steps)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      INDEX idx_workflows_user (user_id, created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE workflow_steps (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      workflow_uuid CHAR(36) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      name VARCHAR(200) NOT NULL,
      type VARCHAR(40) NOT NULL,
      details LONGTEXT NOT NULL CHECK (JSON_VALID(details)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_workflow_steps_name (workflow_uuid, name),
      CONSTRAINT fk_workflow_steps_workflow FOREIGN KEY (workflow_uuid) REFERENCES workflows (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE triggers (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      workflow_uuid CHAR(36) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      type VARCHAR(40) NOT NULL,
      details LONGTEXT NOT NULL CHECK (JSON_VALID(details)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_triggers_workflow (workflow_uuid),
      CONSTRAINT fk_triggers_workflow FOREIGN KEY (workflow_uuid) REFERENCES workflows (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE api_keys (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      key_hash CHAR(64) NOT NULL,
      key_prefix VARCHAR(16) NOT NULL,
      user_id VARCHAR(191) NOT NULL,
      name VARCHAR(200) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      revoked_at DATETIME(3) NULL,
      UNIQUE KEY uq_api_keys_hash (key_hash),
      INDEX idx_api_keys_user (user_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE api_keys');
    await db.query('DROP TABLE triggers');
    await db.query('DROP TABLE workflow_steps');
    await db.query('DROP TABLE workflows');
  }
}
