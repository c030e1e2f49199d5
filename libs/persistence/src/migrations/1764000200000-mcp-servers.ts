import type { MigrationInterface, QueryRunner } from 'typeorm';

// MCP servers a user registered (their headers and env sealed with ENCRYPTION_KEYS), and on each tool call
// the server that answered it (NULL for registered and built-in tools).
export class McpServers1764000200000 implements MigrationInterface {
  name = 'McpServers1764000200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE mcp_servers (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      name VARCHAR(40) NOT NULL,
      transport VARCHAR(20) NOT NULL,
      url TEXT NULL,
      sealed_headers TEXT NULL,
      command TEXT NULL,
      args LONGTEXT NOT NULL CHECK (JSON_VALID(args)),
      sealed_env TEXT NULL,
      timeout_ms INT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_mcp_servers_user_name (user_id, name)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query('ALTER TABLE tool_calls ADD COLUMN mcp_server VARCHAR(40) NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tool_calls DROP COLUMN mcp_server');
    await db.query('DROP TABLE mcp_servers');
  }
}
