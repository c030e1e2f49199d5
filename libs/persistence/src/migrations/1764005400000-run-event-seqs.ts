import type { MigrationInterface, QueryRunner } from 'typeorm';
import { FINAL, MODEL_CALL, MODEL_END, preview, STEP, TOOL_CALL, TOOL_END, TRIGGERS as FIRST_TRIGGERS } from './1764004000000-run-events';
import { triggers as guardRailTriggers } from './1764004400000-run-event-guard-rails';
import { GUARD, RUN_CHANGED, STEP_CHANGED } from './1764005000000-run-guard-rail-data';

// A run's event counter on a narrow table of its own (issue #32): `run_event_seqs` holds each run's last event
// number, with no CHECK and no trigger. Counting on `workflow_runs.last_event_seq` evaluated every CHECK of that
// wide row (json_valid of the run's definition among them, whose size a tenant chooses) and fired its BEFORE
// UPDATE trigger, four times a chain step. Each event still locks the run's row first, by a locking read that
// writes nothing: a counter row is only ever locked under its run's row, so no transaction takes the two in a
// new order (no new deadlock), and the counter's lock, held to the commit, keeps a run's events committing in
// seq order. Runs in flight go on from their last number; a new run's row is written with it (run_started is 1);
// a run's row goes with the run (ON DELETE CASCADE).
const KEY = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';
const EVENT_COLUMNS = '(run_uuid, seq, workflow_uuid, user_id, type, payload)';

/**
 * Takes run `run`'s next event number on its counter row. A run without one (an event in the moments this
 * migration swaps the triggers) starts it after its last event.
 */
const nextSeq = (run: string) => `
    UPDATE run_event_seqs SET seq = seq + 1 WHERE run_uuid = ${run};
    IF ROW_COUNT() = 0 THEN
      INSERT INTO run_event_seqs (run_uuid, seq) SELECT ${run}, COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_uuid = ${run};
    END IF;`;

/** Where `emit` keeps the run's workflow and user: each trigger that emits declares them first. */
const EMITTER = `DECLARE event_workflow CHAR(36) ${KEY}; DECLARE event_user VARCHAR(191) ${KEY};`;

/** Statements that append an event of `type` to run `run` from an audit table's trigger: the run's row locked first. */
const emit = (run: string, type: string, payload: string) => `
    SELECT workflow_uuid, user_id INTO event_workflow, event_user FROM workflow_runs WHERE uuid = ${run} FOR UPDATE;
    ${nextSeq(run)}
    INSERT INTO run_events ${EVENT_COLUMNS}
      SELECT run_uuid, seq, event_workflow, event_user, '${type}', ${payload} FROM run_event_seqs WHERE run_uuid = ${run};`;

/** The same from the run row's own trigger, which its update has locked; `type` an SQL expression. */
const emitOnRun = (type: string, payload: string) => `
    ${nextSeq('NEW.uuid')}
    INSERT INTO run_events ${EVENT_COLUMNS}
      SELECT NEW.uuid, seq, NEW.workflow_uuid, NEW.user_id, ${type}, ${payload} FROM run_event_seqs WHERE run_uuid = NEW.uuid;`;

const RUN_END = `JSON_OBJECT('run_uuid', NEW.uuid, 'status', NEW.status, 'error', ${preview('NEW.error_message')}, 'prompt_tokens', NEW.prompt_tokens,
  'completion_tokens', NEW.completion_tokens, 'total_tokens', NEW.total_tokens)`;

/** Every trigger that writes events, as RunGuardRailData1764005000000 left them, counting on run_event_seqs. */
const TRIGGERS: Record<string, string> = {
  run_events_run_inserted: `AFTER INSERT ON workflow_runs FOR EACH ROW BEGIN
    INSERT INTO run_event_seqs (run_uuid, seq) VALUES (NEW.uuid, 1);
    INSERT INTO run_events ${EVENT_COLUMNS} VALUES (NEW.uuid, 1, NEW.workflow_uuid, NEW.user_id, 'run_started',
      JSON_OBJECT('run_uuid', NEW.uuid, 'workflow_uuid', NEW.workflow_uuid, 'workflow_name', NEW.workflow_name, 'status', NEW.status,
        'dry_run', NEW.dry_run = 1, 'parent_run_uuid', NEW.parent_run_uuid));
  END`,
  run_events_run_changed: `BEFORE UPDATE ON workflow_runs FOR EACH ROW BEGIN
    IF NEW.status <> OLD.status THEN
      IF NEW.status IN ${FINAL} AND NEW.guard_rail IS NOT NULL THEN
        ${emitOnRun(`'guard_rail_hit'`, GUARD('NEW.uuid', 'NEW.guard_rail', 'NEW.error_message', 'NULL'))}
      END IF;
      ${emitOnRun(`IF(NEW.status IN ${FINAL}, 'run_ended', 'run_status')`, RUN_END)}
    END IF;
    IF NOT (NEW.notification <=> OLD.notification) AND NEW.notification IS NOT NULL THEN
      ${emitOnRun(`'notification_sent'`, `JSON_OBJECT('run_uuid', NEW.uuid, 'notification', JSON_EXTRACT(NEW.notification, '$'))`)}
    END IF;
  END`,
  run_events_step_opened: `AFTER INSERT ON workflow_step_instances FOR EACH ROW BEGIN
    ${EMITTER}
    IF NEW.parent_instance_uuid IS NOT NULL THEN ${emit('NEW.run_uuid', 'loop_iteration', `JSON_OBJECT(${STEP})`)} END IF;
  END`,
  run_events_step_changed: `AFTER UPDATE ON workflow_step_instances FOR EACH ROW BEGIN
    DECLARE hit LONGTEXT;
    ${EMITTER}
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
  END`,
  run_events_model_call_started: `AFTER INSERT ON model_calls FOR EACH ROW BEGIN
    DECLARE corrects INT DEFAULT IF(JSON_VALID(NEW.request), CAST(JSON_EXTRACT(NEW.request, '$.corrects_turn') AS SIGNED), NULL);
    ${EMITTER}
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
  run_events_model_call_ended: `AFTER UPDATE ON model_calls FOR EACH ROW BEGIN
    ${EMITTER}
    IF NEW.status <> OLD.status THEN ${emit('NEW.run_uuid', 'model_call_finished', `JSON_OBJECT(${MODEL_END})`)} END IF;
  END`,
  run_events_tool_call_started: `AFTER INSERT ON tool_calls FOR EACH ROW BEGIN
    ${EMITTER}
    ${emit('NEW.run_uuid', 'tool_call_started', `JSON_OBJECT(${TOOL_CALL}, 'input', ${preview('NEW.input')})`)}
    IF NEW.status <> 'running' THEN ${emit('NEW.run_uuid', 'tool_call_finished', `JSON_OBJECT(${TOOL_END})`)} END IF;
  END`,
  run_events_tool_call_ended: `AFTER UPDATE ON tool_calls FOR EACH ROW BEGIN
    ${EMITTER}
    IF NEW.status <> OLD.status THEN ${emit('NEW.run_uuid', 'tool_call_finished', `JSON_OBJECT(${TOOL_END})`)} END IF;
  END`,
};

/** The triggers this migration replaces, as the migrations before it left them. */
const PREVIOUS: Record<string, string> = {
  ...FIRST_TRIGGERS,
  ...guardRailTriggers(true),
  run_events_run_changed: RUN_CHANGED,
  run_events_step_changed: STEP_CHANGED,
};

export class RunEventSeqs1764005400000 implements MigrationInterface {
  name = 'RunEventSeqs1764005400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE run_event_seqs (
      run_uuid CHAR(36) ${KEY} NOT NULL PRIMARY KEY,
      seq INT NOT NULL,
      CONSTRAINT fk_run_event_seqs_run FOREIGN KEY (run_uuid) REFERENCES workflow_runs (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    // Triggers first, then the numbers: an event between the two starts its run's row after its last event.
    await replaceTriggers(db, TRIGGERS);
    await db.query('DROP TRIGGER IF EXISTS run_events_run_started');
    await db.query('INSERT IGNORE INTO run_event_seqs (run_uuid, seq) SELECT uuid, last_event_seq FROM workflow_runs');
    await db.query('ALTER TABLE workflow_runs DROP COLUMN last_event_seq');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_runs ADD COLUMN last_event_seq INT NOT NULL DEFAULT 0');
    await copyNumbersBack(db);
    await replaceTriggers(db, PREVIOUS);
    // Again: an event counted on run_event_seqs while the triggers were swapped.
    await copyNumbersBack(db);
    await db.query('DROP TABLE run_event_seqs');
  }
}

async function replaceTriggers(db: QueryRunner, bodies: Record<string, string>): Promise<void> {
  for (const [name, body] of Object.entries(bodies)) {
    await db.query(`DROP TRIGGER IF EXISTS ${name}`);
    await db.query(`CREATE TRIGGER ${name} ${body}`);
  }
}

const copyNumbersBack = (db: QueryRunner) =>
  db.query('UPDATE workflow_runs r JOIN run_event_seqs c ON c.run_uuid = r.uuid SET r.last_event_seq = GREATEST(r.last_event_seq, c.seq)');
