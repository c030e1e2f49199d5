import { periodKeys } from '@app/domain';
import type { SpendRepository } from '@app/persistence';
import type { RunLauncher } from './run-launcher';
import type { RunLog } from './run-log';

/** Signals sent at once: a user's paused runs are bounded by their runs in flight, but not sent one by one. */
const CONCURRENCY = 8;

/**
 * Runs paused on their user's spend limit wait for the period's reset; when the limits that paused them may
 * have changed, each is asked to try its call again now (the worker then finds room or pauses it again):
 * after a user sets their own limits, and at the API's start for the operator's (a changed setting comes with
 * a restart).
 */
export class SpendRechecks {
  private startup: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly spend: SpendRepository,
    private readonly launcher: RunLauncher,
    /** The user's runs in flight at most (MAX_RUNS_IN_FLIGHT_PER_USER): how many paused runs a user can have. */
    private readonly runsPerUser: number,
    private readonly log: RunLog,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The user's limits changed: each of their paused runs tries again. How many were asked. */
  async forUser(userId: string): Promise<number> {
    const runs = await this.spend.spendPausedRuns(userId, this.runsPerUser);
    for (let next = 0; next < runs.length && !this.stopping; next += CONCURRENCY)
      await Promise.all(runs.slice(next, next + CONCURRENCY).map((run) => this.launcher.recheckSpend(run.temporal_workflow_id)));
    return runs.length;
  }

  /** Nest calls this once the API is up (its lifecycle hook, by name): the operator's limits may be new. Not awaited: the start does not wait on Temporal. */
  onApplicationBootstrap(): void {
    this.startup = this.forEveryUser().catch((error: unknown) =>
      // Temporal or the database away at the start: paused runs still go on at their reset.
      this.log.warn(`re-checking runs paused on spend limits failed: ${(error as Error).message}`),
    );
  }

  /**
   * Nest calls this before any module's shutdown hook, so before the Temporal connection closes: the start's
   * pass sends no more signals and the ones in flight end first (a signal still retrying when its connection
   * closed would throw from the client's retry timer, outside any caller).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.startup;
  }

  /** Every paused run of the users with spend this day or month (only they can be paused now). */
  async forEveryUser(): Promise<void> {
    const { day, month } = periodKeys(this.clock());
    for (const userId of await this.spend.usersSpendingIn([day, month])) {
      if (this.stopping) return;
      await this.forUser(userId);
    }
  }
}
