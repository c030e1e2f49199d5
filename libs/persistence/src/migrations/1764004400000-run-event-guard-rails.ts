import type { MigrationInterface, QueryRunner } from 'typeorm';

// Two more live events (#28), written by the triggers that already write a run's events (they replace
// three of RunEvents1764004000000's, which stays as it landed):
// - `guard_rail_hit`: a graph walk's guard rail (max_steps, repeated_input, timeout_seconds) tripped. The
//   walk records it twice, in the guard's own message: as the run's error when the run ends on it, or as
//   the `reason` of the question the human hand-off step asks. The event goes just before `run_ended` or
//   `awaiting_input`, in the same write. repeated_input names the step it refused; the other two no step.
// - `attempt_restarted` for a structured step's correction turn too: the worker marks that call's audited
//   request with `corrects_turn`, and a watcher drops the rejected turn's text as it does a dead attempt's.
const PREVIEW = 2000;
/** A trigger's text variables take the database's collation: a step name compares in its column's. */
const NAME = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci';
const preview = (column: string) => `LEFT(${column}, ${PREVIEW})`;

/** Statements that append an event of `type` to run `run` (an SQL expression), `payload` a JSON_OBJECT expression. */
const emit = (run: string, type: string, payload: string) => `
    UPDATE workflow_runs SET last_event_seq = last_event_seq + 1, updated_at = updated_at WHERE uuid = ${run};
    INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload)
      SELECT uuid, last_event_seq, workflow_uuid, user_id, '${type}', ${payload} FROM workflow_runs WHERE uuid = ${run};`;

const STEP = `'instance_uuid', NEW.uuid, 'step_uuid', NEW.step_definition_uuid, 'step_name', NEW.step_name, 'step_type', NEW.step_type,
  'parent_instance_uuid', NEW.parent_instance_uuid, 'execution_index', NEW.execution_index`;
const MODEL_CALL = `'instance_uuid', NEW.step_instance_uuid, 'turn', NEW.turn, 'attempt', NEW.attempt, 'provider', NEW.provider, 'model', NEW.model`;
const MODEL_END = `${MODEL_CALL}, 'status', NEW.status, 'error', ${preview('NEW.error_message')}, 'prompt_tokens', NEW.prompt_tokens,
  'completion_tokens', NEW.completion_tokens, 'total_tokens', NEW.total_tokens, 'duration_ms', NEW.duration_ms`;
const FINAL = `('completed', 'failed', 'cancelled', 'stopped', 'partial_success')`;

/** The guard rail a guard's message (libs/engine graph/guard-rails.ts) names, NULL for any other text. */
const railOf = (message: string) => `CASE
    WHEN ${message} LIKE 'Guard max_steps reached%' THEN 'max_steps'
    WHEN ${message} LIKE 'Guard repeated_input: step "%' THEN 'repeated_input'
    WHEN ${message} LIKE 'Guard timeout_seconds reached%' THEN 'timeout_seconds' END`;
/** The step repeated_input refused: its name as the message quotes it (`step "<name>" was reached again`). */
const refusedOf = (message: string) =>
  `IF(${message} LIKE 'Guard repeated_input: step "%',
    SUBSTRING(${message}, 29, LOCATE('" was reached again', ${message}) - 29), NULL)`;
/** Its definition's uuid, from an execution of a step of that name in the run. */
const refusedUuidOf = (run: string, name: string) =>
  `(SELECT step_definition_uuid FROM workflow_step_instances WHERE run_uuid = ${run} AND step_name = ${name} LIMIT 1)`;
const GUARD = (run: string, message: string, refused: string, handedTo: string) =>
  `JSON_OBJECT('run_uuid', ${run}, 'rail', ${railOf(message)}, 'message', ${preview(message)},
    'step_name', ${refused}, 'step_uuid', ${refusedUuidOf(run, refused)}, 'handed_to', ${handedTo})`;

/** The three triggers, `added`: with this migration's events; else without them (`down`). */
export const triggers = (added: boolean): Record<string, string> => ({
  run_events_run_changed: `BEFORE UPDATE ON workflow_runs FOR EACH ROW BEGIN
    DECLARE refused VARCHAR(255) ${NAME};
    IF NEW.status <> OLD.status THEN
      IF ${added} AND NEW.status IN ${FINAL} AND ${railOf('NEW.error_message')} IS NOT NULL THEN
        SET refused = ${refusedOf('NEW.error_message')};
        SET NEW.last_event_seq = NEW.last_event_seq + 1;
        INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload) VALUES (NEW.uuid, NEW.last_event_seq, NEW.workflow_uuid, NEW.user_id,
          'guard_rail_hit', ${GUARD('NEW.uuid', 'NEW.error_message', 'refused', 'NULL')});
      END IF;
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
  run_events_step_changed: `AFTER UPDATE ON workflow_step_instances FOR EACH ROW BEGIN
    DECLARE reason LONGTEXT ${NAME};
    DECLARE refused VARCHAR(255) ${NAME};
    IF NEW.status = 'running' AND (OLD.status <> 'running' OR NEW.attempts <> OLD.attempts) THEN
      ${emit('NEW.run_uuid', 'step_started', `JSON_OBJECT(${STEP}, 'attempt', NEW.attempts)`)}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'awaiting_input' THEN
      SET reason = IF(JSON_VALID(NEW.input_data), JSON_UNQUOTE(JSON_EXTRACT(NEW.input_data, '$.reason')), NULL);
      IF ${added} AND ${railOf('reason')} IS NOT NULL THEN
        SET refused = ${refusedOf('reason')};
        ${emit('NEW.run_uuid', 'guard_rail_hit', GUARD('NEW.run_uuid', 'reason', 'refused', `JSON_OBJECT(${STEP})`))}
      END IF;
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
  // A later attempt restarts its turn; a correction turn restarts the answer of the turn it corrects.
  run_events_model_call_started: `AFTER INSERT ON model_calls FOR EACH ROW BEGIN
    DECLARE corrects INT DEFAULT IF(${added} AND JSON_VALID(NEW.request), CAST(JSON_EXTRACT(NEW.request, '$.corrects_turn') AS SIGNED), NULL);
    IF NEW.attempt > 1 OR corrects IS NOT NULL THEN
      ${emit(
        'NEW.run_uuid',
        'attempt_restarted',
        `JSON_OBJECT(${MODEL_CALL}, 'reason', IF(corrects IS NULL, 'retry', 'correction'),
          'previous_attempt', IF(NEW.attempt > 1, NEW.attempt - 1, NULL), 'previous_turn', corrects + 0)`,
      )}
    END IF;
    ${emit('NEW.run_uuid', 'model_call_started', `JSON_OBJECT(${MODEL_CALL})`)}
    IF NEW.status <> 'running' THEN ${emit('NEW.run_uuid', 'model_call_finished', `JSON_OBJECT(${MODEL_END})`)} END IF;
  END`,
});

export class RunEventGuardRails1764004400000 implements MigrationInterface {
  name = 'RunEventGuardRails1764004400000';

  async up(db: QueryRunner): Promise<void> {
    await replace(db, triggers(true));
  }

  async down(db: QueryRunner): Promise<void> {
    await replace(db, triggers(false));
  }
}

async function replace(db: QueryRunner, bodies: Record<string, string>): Promise<void> {
  for (const [name, body] of Object.entries(bodies)) {
    await db.query(`DROP TRIGGER IF EXISTS ${name}`);
    await db.query(`CREATE TRIGGER ${name} ${body}`);
  }
}
