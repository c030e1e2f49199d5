import type { MigrationInterface, QueryRunner } from 'typeorm';

// The assistant: a session's state (workflow_agent_states), the work its activities finished, keyed
// so that a retried activity finds it (assistant_calls), and the events the SSE endpoints replay in order
// (assistant_events, `seq` per session, `event_key` so that a retried activity adds no event twice).
export class Assistant1764000400000 implements MigrationInterface {
  name = 'Assistant1764000400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE workflow_agent_states (
      uuid CHAR(36) NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) NOT NULL,
      mode VARCHAR(8) NOT NULL,
      source_workflow_uuid CHAR(36) NULL,
      provider VARCHAR(64) NULL,
      model VARCHAR(191) NULL,
      stage VARCHAR(32) NOT NULL,
      previous_stage VARCHAR(32) NULL,
      intent_summary TEXT NOT NULL,
      conversations LONGTEXT NOT NULL CHECK (JSON_VALID(conversations)),
      pending_questions LONGTEXT NOT NULL CHECK (JSON_VALID(pending_questions)),
      generation LONGTEXT NOT NULL CHECK (JSON_VALID(generation)),
      candidate LONGTEXT NULL CHECK (candidate IS NULL OR JSON_VALID(candidate)),
      workflow_uuid CHAR(36) NULL,
      final_error_message TEXT NULL,
      prompt_tokens INT NOT NULL DEFAULT 0,
      completion_tokens INT NOT NULL DEFAULT 0,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      INDEX idx_agent_states_user (user_id, created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE assistant_calls (
      session_uuid CHAR(36) NOT NULL,
      call_key VARCHAR(120) NOT NULL,
      result LONGTEXT NOT NULL CHECK (JSON_VALID(result)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (session_uuid, call_key),
      CONSTRAINT fk_assistant_calls_session FOREIGN KEY (session_uuid) REFERENCES workflow_agent_states (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await db.query(`CREATE TABLE assistant_events (
      session_uuid CHAR(36) NOT NULL,
      seq INT NOT NULL,
      event_key VARCHAR(160) NOT NULL,
      payload LONGTEXT NOT NULL CHECK (JSON_VALID(payload)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (session_uuid, seq),
      UNIQUE KEY uq_assistant_events_key (session_uuid, event_key),
      CONSTRAINT fk_assistant_events_session FOREIGN KEY (session_uuid) REFERENCES workflow_agent_states (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE assistant_events');
    await db.query('DROP TABLE assistant_calls');
    await db.query('DROP TABLE workflow_agent_states');
  }
}
