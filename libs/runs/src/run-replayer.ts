import { isInFlight, type ReplaySource, type WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode, notFound } from '@app/domain';
import type { RunRepository, WorkflowVersionRepository } from '@app/persistence';
import type { Prepared, RunPreparer } from './run-preparer';

/** What a replay runs: the workflow as saved now, one of its versions, or a definition given with the request (not saved). */
export type ReplayTarget =
  { kind: 'current' } | { kind: 'version'; version: number } | { kind: 'definition'; definition: WorkflowDefinition };

export interface ReplayRequest {
  userId: string;
  /** The recorded run: its trigger data is run again, and its record answers what is asked again. */
  sourceRunUuid: string;
  target: ReplayTarget;
  /** Model calls not in the record go to the dry-run model, tool calls not in it get a dry run's answer. */
  offline: boolean;
  runUuid: string;
  temporalWorkflowId: string;
}

/**
 * A replay: the recorded run's trigger data run again through a target definition, as a new run of the same
 * workflow marked `replay_of`, whose activities answer from the record what the recorded run asked already
 * (`ReplaySource`). The run must have ended: its record is what the replay compares with.
 */
export class RunReplayer {
  constructor(
    private readonly runs: RunRepository,
    private readonly preparer: RunPreparer,
    private readonly versions: WorkflowVersionRepository,
  ) {}

  async prepare(request: ReplayRequest): Promise<Prepared> {
    const source = await this.runs.find(request.userId, request.sourceRunUuid);
    if (!source) throw notFound('Run', request.sourceRunUuid);
    if (isInFlight(source.status)) {
      throw new DomainError(ErrorCode.RunStillRunning, 'The run is still running: its record is complete once it has ended', {
        status: source.status,
      });
    }
    const replay: ReplaySource = { of: source.uuid, ...(request.offline ? { offline: true as const } : {}) };
    const run = {
      userId: request.userId,
      workflowUuid: source.workflow_uuid,
      triggerOutput: source.trigger_output?.raw_data ?? null,
      runUuid: request.runUuid,
      temporalWorkflowId: request.temporalWorkflowId,
      replay,
    };
    if (request.target.kind === 'current') return this.preparer.prepare({ ...run, origin: 'manual' });
    if (request.target.kind === 'version') {
      const version = await this.versions.find(request.userId, source.workflow_uuid, request.target.version);
      if (!version)
        throw new DomainError(ErrorCode.NotFound, `Workflow ${source.workflow_uuid} has no version ${request.target.version}`, {
          field: 'target',
          version: request.target.version,
        });
      return this.preparer.prepareVersion(run, { ...version.definition, uuid: source.workflow_uuid }, version.version);
    }
    // Listed under the recorded run's workflow, whatever uuid the definition carried.
    return this.preparer.prepareUnsaved(run, { ...request.target.definition, uuid: source.workflow_uuid });
  }
}
