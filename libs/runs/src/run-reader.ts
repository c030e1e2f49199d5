import { isInFlight } from '@app/contracts';
import { notFound } from '@app/domain';
import type { RunRecord, RunRepository, RunWithSteps } from '@app/persistence';
import { asEnded, endedRecord, unrecordedEnd, type RunEnd } from './run-ending';
import type { RunLauncher } from './run-launcher';
import type { RunLog } from './run-log';

/**
 * A run as it stands, for its owner: its rows, and for a run they show in flight, the end Temporal knows of
 * and the run did not record (terminated from the Web UI or CLI, or by the server for a payload over its
 * limit). Nothing is written: the reconciler records such an end.
 */
export class RunReader {
  constructor(
    private readonly runs: RunRepository,
    private readonly launcher: RunLauncher,
    private readonly log: RunLog,
  ) {}

  /** The run with its steps and audit; NOT_FOUND when it is not the user's. */
  async find(userId: string, runUuid: string): Promise<RunWithSteps> {
    const run = await this.found(this.runs.find(userId, runUuid), runUuid);
    const end = await this.unrecordedEnd(run);
    if (!end) return run;
    // The run may have recorded its own end between the read above and Temporal's answer.
    const reread = await this.found(this.runs.findRun(userId, runUuid), runUuid);
    return isInFlight(reread.status) ? asEnded(run, end, new Date()) : this.found(this.runs.find(userId, runUuid), runUuid);
  }

  /** The run's own row (its status, definition, budget), without its steps and audit. */
  async findRun(userId: string, runUuid: string): Promise<RunRecord> {
    const run = await this.found(this.runs.findRun(userId, runUuid), runUuid);
    const end = await this.unrecordedEnd(run);
    if (!end) return run;
    const reread = await this.found(this.runs.findRun(userId, runUuid), runUuid);
    return isInFlight(reread.status) ? endedRecord(reread, end, new Date()) : reread;
  }

  /** Temporal is asked only about a run its rows show in flight; unreachable, the rows are the answer. */
  private async unrecordedEnd(run: RunRecord): Promise<RunEnd | null> {
    if (!isInFlight(run.status)) return null;
    try {
      const end = unrecordedEnd(run, await this.launcher.observe(run.temporal_workflow_id), new Date());
      if (end) this.log.warn(`run ${run.uuid} is recorded in flight but its execution has ended: ${end.error_message}`);
      return end;
    } catch (error) {
      this.log.warn(`run ${run.uuid}: Temporal could not be asked about its execution: ${(error as Error).message}`);
      return null;
    }
  }

  private async found<T>(read: Promise<T | null>, runUuid: string): Promise<T> {
    const run = await read;
    if (!run) throw notFound('Run', runUuid);
    return run;
  }
}
