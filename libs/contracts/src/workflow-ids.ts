// Every Temporal workflow id stepwise starts, and what it names: the codec endpoint finds a payload's
// owner through it (a run, a schedule's runs, a step's summary, an assistant session).
// Besides these: runWorkflowId (engine.ts), summaryWorkflowId (step-summary.ts) and assistantWorkflowId (assistant.ts).

/** A schedule's action: Temporal appends `-<time>` for each execution it starts. */
export const scheduleWorkflowId = (scheduleId: string): string => `scheduled-${scheduleId}`;

export type WorkflowIdSubject =
  | { kind: 'run'; run_uuid: string }
  | { kind: 'schedule'; schedule_id: string }
  | { kind: 'summary'; step_uuid: string }
  | { kind: 'assistant'; session_uuid: string };

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const RUN = new RegExp(`^run-(${UUID})$`);
// A schedule's id is sched-<uuid>; the execution's id may carry the time Temporal appended.
const SCHEDULED = new RegExp(`^scheduled-(sched-${UUID})(?:-.+)?$`);
const SUMMARY = new RegExp(`^summary-(${UUID})-.+$`);
const ASSISTANT = new RegExp(`^assistant-(${UUID})$`);

/** What a workflow id names; null for an id stepwise does not make. */
export function workflowIdSubject(workflowId: string): WorkflowIdSubject | null {
  const run = RUN.exec(workflowId);
  if (run) return { kind: 'run', run_uuid: run[1] };
  const scheduled = SCHEDULED.exec(workflowId);
  if (scheduled) return { kind: 'schedule', schedule_id: scheduled[1] };
  const summary = SUMMARY.exec(workflowId);
  if (summary) return { kind: 'summary', step_uuid: summary[1] };
  const assistant = ASSISTANT.exec(workflowId);
  return assistant ? { kind: 'assistant', session_uuid: assistant[1] } : null;
}
