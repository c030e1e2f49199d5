import type { MigrationInterface, QueryRunner } from 'typeorm';

// A run's live events (#28): `run_events`, one row per thing a watcher wants to see (a step started or
// ended, a model or tool call started or ended, a retried attempt, a wait for a person, the run's end),
// numbered per run by `workflow_runs.last_event_seq`. They are written by triggers on the audit tables,
// so every write the worker already makes (one round trip, a one-statement upsert, the run's end) carries
// its events in its own transaction at no extra round trip, and no path can forget one. The per-run
// counter is a row lock held to the commit: a run's events commit in seq order, so a reader that asks for
// `seq > n` never skips one that commits late. `run_deltas` holds a streamed model answer's text and
// tool-call argument deltas while they stream (batched by the worker; runs' ends sweep the old ones).
const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
/** Keys compare exactly, as every identity column does since the exact-identities migration. */
const KEY = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';

/** What a stored text becomes in an event: at most this many characters (a tool's input or answer, an error). */
const PREVIEW = 2000;
export const preview = (column: string) => `LEFT(${column}, ${PREVIEW})`;

/** Statements that append an event of `type` to run `run` (an SQL expression), `payload` a JSON_OBJECT expression. */
const emit = (run: string, type: string, payload: string) => `
    UPDATE workflow_runs SET last_event_seq = last_event_seq + 1, updated_at = updated_at WHERE uuid = ${run};
    INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload)
      SELECT uuid, last_event_seq, workflow_uuid, user_id, '${type}', ${payload} FROM workflow_runs WHERE uuid = ${run};`;

export const STEP = `'instance_uuid', NEW.uuid, 'step_uuid', NEW.step_definition_uuid, 'step_name', NEW.step_name, 'step_type', NEW.step_type,
  'parent_instance_uuid', NEW.parent_instance_uuid, 'execution_index', NEW.execution_index`;
export const MODEL_CALL = `'instance_uuid', NEW.step_instance_uuid, 'turn', NEW.turn, 'attempt', NEW.attempt, 'provider', NEW.provider, 'model', NEW.model`;
export const MODEL_END = `${MODEL_CALL}, 'status', NEW.status, 'error', ${preview('NEW.error_message')}, 'prompt_tokens', NEW.prompt_tokens,
  'completion_tokens', NEW.completion_tokens, 'total_tokens', NEW.total_tokens, 'duration_ms', NEW.duration_ms`;
export const TOOL_CALL = `'instance_uuid', NEW.step_instance_uuid, 'tool_call_id', NEW.tool_call_id, 'attempt', NEW.attempt, 'tool_name', NEW.tool_name,
  'mcp_server', NEW.mcp_server`;
export const TOOL_END = `${TOOL_CALL}, 'status', NEW.status, 'error', ${preview('NEW.error_message')}, 'output', ${preview('NEW.output')}, 'duration_ms', NEW.duration_ms`;
export const FINAL = `('completed', 'failed', 'cancelled', 'stopped', 'partial_success')`;

export const TRIGGERS: Record<string, string> = {
  // The run's row: its first event, its status changes (the final one last of all its events), its notification.
  run_events_run_started: `BEFORE INSERT ON workflow_runs FOR EACH ROW SET NEW.last_event_seq = 1`,
  run_events_run_inserted: `AFTER INSERT ON workflow_runs FOR EACH ROW
    INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload) VALUES (NEW.uuid, 1, NEW.workflow_uuid, NEW.user_id, 'run_started',
      JSON_OBJECT('run_uuid', NEW.uuid, 'workflow_uuid', NEW.workflow_uuid, 'workflow_name', NEW.workflow_name, 'status', NEW.status,
        'dry_run', NEW.dry_run = 1, 'parent_run_uuid', NEW.parent_run_uuid))`,
  run_events_run_changed: `BEFORE UPDATE ON workflow_runs FOR EACH ROW BEGIN
    IF NEW.status <> OLD.status THEN
      SET NEW.last_event_seq = NEW.last_event_seq + 1;
      INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload) VALUES (NEW.uuid, NEW.last_event_seq, NEW.workflow_uuid, NEW.user_id,
        IF(NEW.status IN ${FINAL}, 'run_ended', 'run_status'),
        JSON_OBJECT('run_uuid', NEW.uuid, 'status', NEW.status, 'error', ${preview('NEW.error_message')}, 'prompt_tokens', NEW.prompt_tokens,
          'completion_tokens', NEW.completion_tokens, 'total_tokens', NEW.total_tokens));
    END IF;
    IF NOT (NEW.notification <=> OLD.notification) AND NEW.notification IS NOT NULL THEN
      SET NEW.last_event_seq = NEW.last_event_seq + 1;
      INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload) VALUES (NEW.uuid, NEW.last_event_seq, NEW.workflow_uuid, NEW.user_id,
        'notification_sent', JSON_OBJECT('run_uuid', NEW.uuid, 'notification', JSON_EXTRACT(NEW.notification, '$')));
    END IF;
  END`,
  // A step's row: started (again on each attempt), waiting for a person, completed, failed, skipped; an iteration's row opened.
  run_events_step_opened: `AFTER INSERT ON workflow_step_instances FOR EACH ROW BEGIN
    IF NEW.parent_instance_uuid IS NOT NULL THEN ${emit('NEW.run_uuid', 'loop_iteration', `JSON_OBJECT(${STEP})`)} END IF;
  END`,
  run_events_step_changed: `AFTER UPDATE ON workflow_step_instances FOR EACH ROW BEGIN
    IF NEW.status = 'running' AND (OLD.status <> 'running' OR NEW.attempts <> OLD.attempts) THEN
      ${emit('NEW.run_uuid', 'step_started', `JSON_OBJECT(${STEP}, 'attempt', NEW.attempts)`)}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'awaiting_input' THEN
      ${emit('NEW.run_uuid', 'awaiting_input', `JSON_OBJECT(${STEP}, 'input', IF(LENGTH(NEW.input_data) <= 16384, JSON_EXTRACT(NEW.input_data, '$'), NULL))`)}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'completed' THEN
      ${emit(
        'NEW.run_uuid',
        'step_completed',
        `JSON_OBJECT(${STEP}, 'output_id', NEW.output_id, 'summary', (SELECT summary FROM step_outputs WHERE uuid = NEW.output_id),
          'prompt_tokens', NEW.prompt_tokens, 'completion_tokens', NEW.completion_tokens, 'total_tokens', NEW.total_tokens, 'duration_ms', NEW.duration_ms)`,
      )}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'failed' THEN
      ${emit('NEW.run_uuid', 'step_failed', `JSON_OBJECT(${STEP}, 'error', ${preview('NEW.error_message')}, 'duration_ms', NEW.duration_ms)`)}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'skipped' THEN
      ${emit('NEW.run_uuid', 'step_skipped', `JSON_OBJECT(${STEP})`)}
    END IF;
  END`,
  // A model call's attempt: started (a later attempt announced as a restart: its partial text is void), ended.
  run_events_model_call_started: `AFTER INSERT ON model_calls FOR EACH ROW BEGIN
    IF NEW.attempt > 1 THEN ${emit('NEW.run_uuid', 'attempt_restarted', `JSON_OBJECT(${MODEL_CALL}, 'previous_attempt', NEW.attempt - 1)`)} END IF;
    ${emit('NEW.run_uuid', 'model_call_started', `JSON_OBJECT(${MODEL_CALL})`)}
    IF NEW.status <> 'running' THEN ${emit('NEW.run_uuid', 'model_call_finished', `JSON_OBJECT(${MODEL_END})`)} END IF;
  END`,
  run_events_model_call_ended: `AFTER UPDATE ON model_calls FOR EACH ROW BEGIN
    IF NEW.status <> OLD.status THEN ${emit('NEW.run_uuid', 'model_call_finished', `JSON_OBJECT(${MODEL_END})`)} END IF;
  END`,
  run_events_tool_call_started: `AFTER INSERT ON tool_calls FOR EACH ROW BEGIN
    ${emit('NEW.run_uuid', 'tool_call_started', `JSON_OBJECT(${TOOL_CALL}, 'input', ${preview('NEW.input')})`)}
    IF NEW.status <> 'running' THEN ${emit('NEW.run_uuid', 'tool_call_finished', `JSON_OBJECT(${TOOL_END})`)} END IF;
  END`,
  run_events_tool_call_ended: `AFTER UPDATE ON tool_calls FOR EACH ROW BEGIN
    IF NEW.status <> OLD.status THEN ${emit('NEW.run_uuid', 'tool_call_finished', `JSON_OBJECT(${TOOL_END})`)} END IF;
  END`,
};

export class RunEvents1764004000000 implements MigrationInterface {
  name = 'RunEvents1764004000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN last_event_seq INT NOT NULL DEFAULT 0');
    await db.query(`CREATE TABLE run_events (
      id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
      run_uuid CHAR(36) ${KEY} NOT NULL,
      seq INT NOT NULL,
      workflow_uuid CHAR(36) ${KEY} NOT NULL,
      user_id VARCHAR(191) ${KEY} NOT NULL,
      type VARCHAR(40) NOT NULL,
      payload LONGTEXT NOT NULL CHECK (JSON_VALID(payload)),
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_run_events_seq (run_uuid, seq),
      INDEX idx_run_events_workflow (workflow_uuid, id),
      CONSTRAINT fk_run_events_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ${TABLE}`);
    await db.query(`CREATE TABLE run_deltas (
      id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
      run_uuid CHAR(36) ${KEY} NOT NULL,
      step_instance_uuid CHAR(36) ${KEY} NOT NULL,
      turn INT NOT NULL,
      attempt INT NOT NULL,
      kind VARCHAR(10) NOT NULL,
      tool_index INT NULL,
      text MEDIUMTEXT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      INDEX idx_run_deltas_run (run_uuid, id),
      INDEX idx_run_deltas_created (created_at)
    ) ${TABLE}`);
    for (const [name, body] of Object.entries(TRIGGERS)) await db.query(`CREATE TRIGGER ${name} ${body}`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const name of Object.keys(TRIGGERS)) await db.query(`DROP TRIGGER IF EXISTS ${name}`);
    await db.query('DROP TABLE run_deltas');
    await db.query('DROP TABLE run_events');
    await db.query('ALTER TABLE workflow_runs DROP COLUMN last_event_seq');
  }
}
