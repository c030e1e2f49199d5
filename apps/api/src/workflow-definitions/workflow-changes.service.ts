import { Injectable } from '@nestjs/common';
import { DefinitionStore, EgressGuard, toWorkflowView, type WorkflowView } from '@app/definitions';
import { acceptsRuns, notFound, parseWorkflowPatch } from '@app/domain';
import { SchedulesService } from '../schedules/schedules.service';

/** The changes a workflow's schedules follow (in Temporal, the API's): a patch that switches it on or off, and a delete. */
@Injectable()
export class WorkflowChanges {
  constructor(
    private readonly store: DefinitionStore,
    private readonly schedules: SchedulesService,
    private readonly egress: EgressGuard,
  ) {}

  async update(userId: string, uuid: string, body: unknown): Promise<WorkflowView> {
    const patch = parseWorkflowPatch(body);
    await this.egress.assertReachable(patch.notify_url, 'notify_url');
    const updated = await this.store.edit(userId, uuid, (current) => ({ ...current, ...patch }));
    // A workflow that refuses scheduled runs (inactive, paused, archived) keeps its schedules, paused; taking them again resumes them.
    if (patch.is_active !== undefined || patch.status !== undefined)
      await this.schedules.setPausedForWorkflow(userId, uuid, !acceptsRuns(updated, 'schedule'));
    return toWorkflowView(updated);
  }

  async remove(userId: string, uuid: string): Promise<void> {
    await this.store.get(userId, uuid);
    await this.schedules.removeForWorkflow(userId, uuid);
    if (!(await this.store.workflows.delete(userId, uuid))) throw notFound('Workflow', uuid);
  }
}
