import { assistantWorkflowId } from './assistant';
import { runWorkflowId } from './engine';
import { summaryWorkflowId } from './step-summary';
import { scheduleWorkflowId, workflowIdSubject } from './workflow-ids';

const uuid = '6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f';

describe(workflowIdSubject.name, () => {
  it('names the run, schedule, step or assistant session behind every workflow id stepwise makes', () => {
    expect(workflowIdSubject(runWorkflowId(uuid))).toEqual({ kind: 'run', run_uuid: uuid });
    expect(workflowIdSubject(scheduleWorkflowId(`sched-${uuid}`))).toEqual({ kind: 'schedule', schedule_id: `sched-${uuid}` });
    // What Temporal names each execution a schedule starts.
    expect(workflowIdSubject(`${scheduleWorkflowId(`sched-${uuid}`)}-2026-11-24T13:00:00Z`)).toEqual({
      kind: 'schedule',
      schedule_id: `sched-${uuid}`,
    });
    expect(workflowIdSubject(summaryWorkflowId(uuid, 'a'.repeat(64)))).toEqual({ kind: 'summary', step_uuid: uuid });
    expect(workflowIdSubject(assistantWorkflowId(uuid))).toEqual({ kind: 'assistant', session_uuid: uuid });
  });

  it('names nothing for ids it does not make', () => {
    for (const id of ['bare-1', `run-${uuid}-x`, 'run-', `scheduled-${uuid}`, `summary-${uuid}`, `assistant-${uuid}-x`])
      expect(workflowIdSubject(id)).toBeNull();
  });
});
