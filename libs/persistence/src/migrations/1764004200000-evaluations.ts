import type { MigrationInterface, QueryRunner } from 'typeorm';

// Evaluations (#30): a workflow's datasets (named cases with assertions), and each evaluation of one against
// one or two targets: the cases as they were when it started, its status and its report.
export class Evaluations1764004200000 implements MigrationInterface {
  name = 'Evaluations1764004200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE eval_datasets (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      workflow_uuid CHAR(36) NOT NULL,
      name VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      cases LONGTEXT NOT NULL CHECK (JSON_VALID(cases)),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_eval_datasets_name (user_id, workflow_uuid, name)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE evaluations (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      workflow_uuid CHAR(36) NOT NULL,
      dataset VARCHAR(100) NOT NULL,
      cases LONGTEXT NOT NULL CHECK (JSON_VALID(cases)),
      targets LONGTEXT NOT NULL CHECK (JSON_VALID(targets)),
      status VARCHAR(20) NOT NULL,
      report LONGTEXT NULL CHECK (report IS NULL OR JSON_VALID(report)),
      error_message TEXT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      finished_at DATETIME(3) NULL,
      INDEX idx_evaluations_workflow (user_id, workflow_uuid, created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE evaluations');
    await db.query('DROP TABLE eval_datasets');
  }
}
