// Whose Temporal workflow is this: the codec endpoint decrypts a payload only for the user that owns the
// workflow it was written for.
import type { DataSource } from 'typeorm';
import { workflowIdSubject } from '@app/contracts';

export abstract class WorkflowOwnerRepository {
  /** The user id owning the workflow, null for an id stepwise does not make or whose subject is gone. */
  abstract ownerOf(workflowId: string): Promise<string | null>;
}

type Row = { user_id: string };

export class SqlWorkflowOwnerRepository extends WorkflowOwnerRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async ownerOf(workflowId: string): Promise<string | null> {
    const subject = workflowIdSubject(workflowId);
    if (!subject) return null;
    switch (subject.kind) {
      case 'run':
        return this.first('SELECT user_id FROM workflow_runs WHERE uuid = ?', [subject.run_uuid]);
      case 'summary':
        return this.first('SELECT user_id FROM step_summaries WHERE step_uuid = ?', [subject.step_uuid]);
      case 'assistant':
        return this.first('SELECT user_id FROM workflow_agent_states WHERE uuid = ?', [subject.session_uuid]);
      case 'schedule':
        // A deleted schedule's runs still name it.
        return (
          (await this.first('SELECT user_id FROM schedules WHERE id = ?', [subject.schedule_id])) ??
          (await this.first('SELECT user_id FROM workflow_runs WHERE schedule_id = ? LIMIT 1', [subject.schedule_id]))
        );
    }
  }

  private async first(sql: string, parameters: unknown[]): Promise<string | null> {
    const rows = (await this.dataSource.query(sql, parameters)) as Row[];
    return rows[0]?.user_id ?? null;
  }
}
