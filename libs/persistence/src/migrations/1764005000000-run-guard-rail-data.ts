import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RunEventGuardRails1764004400000 } from './1764004400000-run-event-guard-rails';

// `guard_rail_hit` from data instead of the guard's message (RunEventGuardRails1764004400000 parsed its text):
// the engine records the rail that tripped as a GuardRailHit ({rail, step_uuid, step_name}), on the run's row
// (`workflow_runs.guard_rail`, written by the finishing activity with the run's end) or, when the run is
// handed to a person, in the hand-off step's question (`input_data.guard_rail`). The two triggers read it
// there; the event's payload keeps its fields, and `message` is still the run's error or the hand-off's reason.
const PREVIEW = 2000;
const preview = (column: string) => `LEFT(${column}, ${PREVIEW})`;

/** Statements that append an event of `type` to run `run` (an SQL expression), `payload` a JSON_OBJECT expression. */
const emit = (run: string, type: string, payload: string) => `
    UPDATE workflow_runs SET last_event_seq = last_event_seq + 1, updated_at = updated_at WHERE uuid = ${run};
    INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload)
      SELECT uuid, last_event_seq, workflow_uuid, user_id, '${type}', ${payload} FROM workflow_runs WHERE uuid = ${run};`;

const STEP = `'instance_uuid', NEW.uuid, 'step_uuid', NEW.step_definition_uuid, 'step_name', NEW.step_name, 'step_type', NEW.step_type,
  'parent_instance_uuid', NEW.parent_instance_uuid, 'execution_index', NEW.execution_index`;
const FINAL = `('completed', 'failed', 'cancelled', 'stopped', 'partial_success')`;

/** The event's payload from `hit` (a GuardRailHit's JSON text): its fields as JSON values, so a null stays null. */
export const GUARD = (run: string, hit: string, message: string, handedTo: string) =>
  `JSON_OBJECT('run_uuid', ${run}, 'rail', JSON_EXTRACT(${hit}, '$.rail'), 'message', ${preview(message)},
    'step_name', JSON_EXTRACT(${hit}, '$.step_name'), 'step_uuid', JSON_EXTRACT(${hit}, '$.step_uuid'), 'handed_to', ${handedTo})`;

export const RUN_CHANGED = `BEFORE UPDATE ON workflow_runs FOR EACH ROW BEGIN
    IF NEW.status <> OLD.status THEN
      IF NEW.status IN ${FINAL} AND NEW.guard_rail IS NOT NULL THEN
        SET NEW.last_event_seq = NEW.last_event_seq + 1;
        INSERT INTO run_events (run_uuid, seq, workflow_uuid, user_id, type, payload) VALUES (NEW.uuid, NEW.last_event_seq, NEW.workflow_uuid, NEW.user_id,
          'guard_rail_hit', ${GUARD('NEW.uuid', 'NEW.guard_rail', 'NEW.error_message', 'NULL')});
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
  END`;

export const STEP_CHANGED = `AFTER UPDATE ON workflow_step_instances FOR EACH ROW BEGIN
    DECLARE hit LONGTEXT;
    IF NEW.status = 'running' AND (OLD.status <> 'running' OR NEW.attempts <> OLD.attempts) THEN
      ${emit('NEW.run_uuid', 'step_started', `JSON_OBJECT(${STEP}, 'attempt', NEW.attempts)`)}
    ELSEIF NEW.status <> OLD.status AND NEW.status = 'awaiting_input' THEN
      SET hit = IF(JSON_VALID(NEW.input_data), JSON_EXTRACT(NEW.input_data, '$.guard_rail'), NULL);
      IF hit IS NOT NULL THEN
        ${emit(
          'NEW.run_uuid',
          'guard_rail_hit',
          GUARD('NEW.run_uuid', 'hit', `JSON_UNQUOTE(JSON_EXTRACT(NEW.input_data, '$.reason'))`, `JSON_OBJECT(${STEP})`),
        )}
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
  END`;

export class RunGuardRailData1764005000000 implements MigrationInterface {
  name = 'RunGuardRailData1764005000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN guard_rail LONGTEXT NULL CHECK (guard_rail IS NULL OR JSON_VALID(guard_rail))');
    for (const [name, body] of Object.entries({ run_events_run_changed: RUN_CHANGED, run_events_step_changed: STEP_CHANGED })) {
      await db.query(`DROP TRIGGER IF EXISTS ${name}`);
      await db.query(`CREATE TRIGGER ${name} ${body}`);
    }
  }

  /** Back to the triggers that read the guard's message, then without the column. */
  async down(db: QueryRunner): Promise<void> {
    await new RunEventGuardRails1764004400000().up(db);
    await db.query('ALTER TABLE workflow_runs DROP COLUMN guard_rail');
  }
}
