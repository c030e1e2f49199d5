import type { MigrationInterface, QueryRunner } from 'typeorm';

// Graph workflows: the entry node and edges of a workflow, null for an ordered chain.
export class Graphs1763801000000 implements MigrationInterface {
  name = 'Graphs1763801000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows ADD COLUMN graph LONGTEXT NULL CHECK (graph IS NULL OR JSON_VALID(graph))');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflows DROP COLUMN graph');
  }
}
