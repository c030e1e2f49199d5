// A run's audit rows read straight from MySQL (not through the API's view), for the fault specs: every
// row a step wrote must be there, and a step that ran twice would leave a second output or model call.
import type { DataSource } from 'typeorm';

export interface RunAudit {
  instances: { uuid: string; step_name: string; status: string; output_id: string | null }[];
  outputs: { uuid: string; step_instance_uuid: string | null; size_bytes: number }[];
  model_calls: { step_instance_uuid: string; turn: number; attempt: number; status: string }[];
  tool_calls: { step_instance_uuid: string; tool_call_id: string; attempt: number; status: string }[];
}

export async function auditOf(db: DataSource, runUuid: string): Promise<RunAudit> {
  const [instances, outputs, model_calls, tool_calls] = await Promise.all([
    db.query('SELECT uuid, step_name, status, output_id FROM workflow_step_instances WHERE run_uuid = ? ORDER BY position', [runUuid]),
    db.query('SELECT uuid, step_instance_uuid, size_bytes FROM step_outputs WHERE run_uuid = ?', [runUuid]),
    db.query('SELECT step_instance_uuid, turn, attempt, status FROM model_calls WHERE run_uuid = ? ORDER BY started_at, turn, attempt', [
      runUuid,
    ]),
    db.query('SELECT step_instance_uuid, tool_call_id, attempt, status FROM tool_calls WHERE run_uuid = ? ORDER BY started_at, attempt', [
      runUuid,
    ]),
  ]);
  return { instances, outputs, model_calls, tool_calls };
}

/** Polls the audit until `done` holds: for the moments the API cannot tell (Temporal is down). */
export async function waitForAudit(
  db: DataSource,
  runUuid: string,
  done: (audit: RunAudit) => boolean,
  timeoutMs = 30_000,
): Promise<RunAudit> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const audit = await auditOf(db, runUuid);
    if (done(audit)) return audit;
    if (Date.now() > deadline)
      throw new Error(`run ${runUuid}: audit not as awaited after ${timeoutMs} ms: ${JSON.stringify(audit.instances)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A completed run whose audit is whole and shows each piece of work once: every step completed with its
 * own stored output (one per step, plus the trigger's), every step with a completed model call, and no
 * model turn or tool call completed twice.
 */
export function expectEachStepOnce(audit: RunAudit): void {
  expect(audit.instances.map((instance) => instance.status)).toEqual(audit.instances.map(() => 'completed'));
  const stepOutputs = audit.outputs.filter((output) => output.step_instance_uuid !== null);
  expect(stepOutputs.map((output) => output.uuid).sort()).toEqual(audit.instances.map((instance) => instance.output_id).sort());
  expect(audit.outputs.filter((output) => output.step_instance_uuid === null)).toHaveLength(1); // the trigger data
  const completedTurns = audit.model_calls
    .filter((call) => call.status === 'completed')
    .map((call) => `${call.step_instance_uuid} turn ${call.turn}`);
  expect(new Set(completedTurns).size).toBe(completedTurns.length);
  for (const instance of audit.instances) expect(completedTurns.some((turn) => turn.startsWith(instance.uuid))).toBe(true);
  const completedTools = audit.tool_calls
    .filter((call) => call.status === 'completed')
    .map((call) => `${call.step_instance_uuid} ${call.tool_call_id}`);
  expect(new Set(completedTools).size).toBe(completedTools.length);
}
