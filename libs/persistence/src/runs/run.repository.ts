import type { BudgetState } from '@app/contracts';
import type { Page, PageRequest } from '../pages';
import type { NewRun, NotificationRecord, RunEnding, RunFilter, RunRecord, RunWithSteps } from './run.records';

/** GET /runs/{uuid} shows this many of a looping step's first and last iterations (and counts them all). */
export const EXECUTIONS_SHOWN_AT_EACH_END = 50;

/**
 * A run's own row, from its start to its end: recorded with its pending steps, read back (scoped by user)
 * with its steps and audit, ended once. Steps, outputs, calls and conversations have their own repositories.
 */
export abstract class RunRepository {
  /**
   * The run, its trigger output and its pending step instances, in one transaction, counted on its
   * workflow. False when a run with that uuid exists already (a repeated delivery).
   */
  abstract create(run: NewRun): Promise<boolean>;
  /**
   * `create`, also answering with the run as written (what GET shows until its workflow moves it on), so
   * that a start needs no read back; `written` is null when it existed already, and for a resumed run
   * (whose carried outputs are its parent's rows).
   */
  abstract start(run: NewRun): Promise<{ created: boolean; written: RunWithSteps | null }>;
  /** Removes a run that was recorded but never started (Temporal was unreachable), uncounted on its workflow. */
  abstract discardUnstarted(runUuid: string): Promise<void>;
  /** The run with its steps in order; a looping step's iterations nested under it, bounded (EXECUTIONS_SHOWN_AT_EACH_END). */
  abstract find(userId: string, uuid: string): Promise<RunWithSteps | null>;
  /** The run's own row, without its steps and audit: for what only needs its status or definition. */
  abstract findRun(userId: string, uuid: string): Promise<RunRecord | null>;
  abstract list(userId: string, filter: RunFilter, page: PageRequest): Promise<Page<RunRecord>>;
  /**
   * Runs of the last day still recorded in flight (running or awaiting input) after `olderThanSeconds`:
   * candidates for the reconciler, oldest first, the page after `after`.
   */
  abstract staleInFlight(olderThanSeconds: number, limit: number, after?: StaleRun | null): Promise<StaleRun[]>;
  /** A budgeted run waits for an approval (awaiting_input) or goes on (running), its budget state shown. */
  abstract setBudget(runUuid: string, budget: BudgetState, status: 'running' | 'awaiting_input'): Promise<void>;
  /**
   * Writes a run's end as `ending` says (libs/runs decides it), its tokens summed from its completed model
   * calls, in one transaction. Idempotent: true only for the call that ended it.
   */
  abstract end(ending: RunEnding): Promise<boolean>;
  /** The latest attempt to deliver the run-end notification. */
  abstract recordNotification(runUuid: string, notification: NotificationRecord): Promise<void>;
}

/** A run recorded in flight for a while, in the order the reconciler pages through them (created_at, then uuid). */
export interface StaleRun {
  uuid: string;
  user_id: string;
  temporal_workflow_id: string;
  created_at: Date;
}
