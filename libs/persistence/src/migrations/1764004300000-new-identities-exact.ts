import type { MigrationInterface, QueryRunner } from 'typeorm';

// The ids of the tables and columns added since exact identities (1764000600000) compared exactly too: they
// took the table's utf8mb4_unicode_ci, under which `alice`'s spend, rate slots or child runs were `Alice`'s.
const COLUMNS: [table: string, column: string, type: string][] = [
  ['workflow_runs', 'parent_step_uuid', 'CHAR(36) NULL'],
  ['user_spend', 'user_id', 'VARCHAR(191) NOT NULL'],
  ['provider_rate_users', 'user_id', 'VARCHAR(191) NOT NULL'],
  ['eval_datasets', 'uuid', 'CHAR(36) NOT NULL'],
  ['eval_datasets', 'workflow_uuid', 'CHAR(36) NOT NULL'],
  ['evaluations', 'uuid', 'CHAR(36) NOT NULL'],
  ['evaluations', 'workflow_uuid', 'CHAR(36) NOT NULL'],
];

async function recollate(db: QueryRunner, collation: string): Promise<void> {
  for (const [table, column, type] of COLUMNS) {
    const [kind, ...nullability] = type.split(' ');
    await db.query(`ALTER TABLE ${table} MODIFY ${column} ${kind} CHARACTER SET utf8mb4 COLLATE ${collation} ${nullability.join(' ')}`);
  }
}

export class NewIdentitiesExact1764004300000 implements MigrationInterface {
  name = 'NewIdentitiesExact1764004300000';

  async up(db: QueryRunner): Promise<void> {
    await recollate(db, 'utf8mb4_bin');
  }

  async down(db: QueryRunner): Promise<void> {
    await recollate(db, 'utf8mb4_unicode_ci');
  }
}
