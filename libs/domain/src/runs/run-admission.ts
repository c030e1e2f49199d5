// Whether a workflow takes a new run: one rule for every way a run starts.
import { DomainError, ErrorCode } from '../errors';

/** Who starts a run: a person (REST, MCP, an immediate schedule, a resume), a webhook delivery, or a schedule firing (timed, triggered or backfilled). */
export type RunOrigin = 'manual' | 'webhook' | 'schedule';

/** What the rule reads of a workflow. */
export interface RunGate {
  is_active: boolean;
  status: string;
}

/**
 * Switched off (`is_active: false`) or archived, a workflow starts no run at all. Paused, its schedules start
 * none (they are paused in Temporal as well) while runs started by hand or by a webhook delivery still start:
 * `paused` pauses the schedules, `archived` also refuses new runs.
 */
export function runRefusal(workflow: RunGate, origin: RunOrigin): DomainError | null {
  if (!workflow.is_active) return new DomainError(ErrorCode.Conflict, 'The workflow is not active', { field: 'is_active' });
  if (workflow.status === 'archived')
    return new DomainError(ErrorCode.Conflict, 'The workflow is archived: it starts no new runs', { field: 'status' });
  if (workflow.status === 'paused' && origin === 'schedule')
    return new DomainError(ErrorCode.Conflict, 'The workflow is paused: its schedules start no runs', { field: 'status' });
  return null;
}

export const acceptsRuns = (workflow: RunGate, origin: RunOrigin): boolean => runRefusal(workflow, origin) === null;

export function assertAcceptsRuns(workflow: RunGate, origin: RunOrigin): void {
  const refusal = runRefusal(workflow, origin);
  if (refusal) throw refusal;
}
