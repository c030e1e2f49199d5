import { isInFlight } from '@app/contracts';
import { DomainError, ErrorCode, quarantineOf } from '@app/domain';
import type { CallAuditRepository, RunRepository, StaleRun } from '@app/persistence';
import { preparedRunOf } from './run-preparer';
import { interruptedEnding, runEnding, startableByApi, unrecordedEnd } from './run-ending';
import type { RunLauncher } from './run-launcher';
import type { RunLog } from './run-log';

export interface ReconcilerSettings {
  /** Seconds between passes (RECONCILE_INTERVAL_SECONDS); null: none (specs pass by hand). */
  intervalSeconds: number | null;
  /** How old a run in flight must be to be looked at (RECONCILE_AFTER_SECONDS). */
  afterSeconds: number;
  /** A run one of whose calls died in flight with this many workers is never started again (POISON_ATTEMPTS_LIMIT). */
  poisonAttemptsLimit: number;
}

const PAGE = 50;

/**
 * Where the rows of runs in flight are brought in line with Temporal, every RECONCILE_INTERVAL_SECONDS in the
 * API: a run recorded but never started (the API died between writing the rows and starting the workflow)
 * is started; a run whose execution ended without recording it (terminated from the Web UI or CLI, lost by
 * Temporal) has that end recorded. Safe on several replicas: a start of `run-<uuid>` joins an execution that
 * exists, so two replicas reconciling one run start it once, and an end is recorded once. A run one of whose
 * calls died in flight with POISON_ATTEMPTS_LIMIT workers is never started again: it ends failed
 * (RUN_QUARANTINED).
 */
export class RunReconciler {
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<number> | null = null;

  constructor(
    private readonly runs: RunRepository,
    private readonly calls: CallAuditRepository,
    private readonly launcher: RunLauncher,
    private readonly settings: ReconcilerSettings,
    private readonly log: RunLog,
  ) {}

  /** Nest calls this once the API is up (its lifecycle hook, by name): the passes begin. */
  onApplicationBootstrap(): void {
    const { intervalSeconds } = this.settings;
    if (intervalSeconds === null) return;
    this.timer = setInterval(
      () => void this.pass().catch((error: unknown) => this.log.warn(`reconciling failed: ${(error as Error).message}`)),
      intervalSeconds * 1000,
    );
    this.timer.unref();
  }

  /** Before any module's shutdown hook (the Temporal connection closes in one): a pass in flight ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.passing?.catch(() => undefined);
  }

  /** One pass; how many runs it started. `afterSeconds` (default the setting): how old a run must be. */
  pass(afterSeconds = this.settings.afterSeconds): Promise<number> {
    this.passing ??= this.reconcile(afterSeconds).finally(() => (this.passing = null));
    return this.passing;
  }

  /**
   * Pages through every candidate: runs that are long but alive stay candidates, so a pass that stopped at a
   * first page of them would never reach a run recorded after them.
   */
  private async reconcile(afterSeconds: number): Promise<number> {
    let started = 0;
    for (
      let page = await this.runs.staleInFlight(afterSeconds, PAGE);
      page.length;
      page = await this.runs.staleInFlight(afterSeconds, PAGE, page.at(-1))
    ) {
      for (const candidate of page) if (await this.reconcileOneOrPass(candidate)) started++;
    }
    return started;
  }

  /**
   * A run that cannot be started (a row it cannot make a workflow input of) is logged and passed over: it
   * must not hold back every run behind it. An unreachable Temporal ends the pass: the next one tries again.
   */
  private async reconcileOneOrPass(candidate: StaleRun): Promise<boolean> {
    try {
      return await this.reconcileOne(candidate);
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.TemporalUnavailable) throw error;
      this.log.error(`run ${candidate.uuid} could not be reconciled: ${(error as Error).message}`);
      return false;
    }
  }

  /** Whether it started the run. */
  private async reconcileOne({ uuid, user_id, temporal_workflow_id }: StaleRun): Promise<boolean> {
    const execution = await this.launcher.observe(temporal_workflow_id);
    if (execution.state === 'running') return false;
    const run = await this.runs.find(user_id, uuid);
    if (!run || !isInFlight(run.status)) return false;
    if (execution.state === 'missing' && startableByApi(run)) {
      const quarantine = quarantineOf(
        { what: 'a call of the run', died: await this.calls.mostDiedAttempts(uuid) },
        this.settings.poisonAttemptsLimit,
      );
      if (quarantine) {
        await this.runs.end(runEnding(uuid, { status: 'failed', error_message: quarantine.message }));
        this.log.warn(`run ${uuid} has no execution, and a call of it killed its workers: ended it as quarantined instead of starting it`);
        return false;
      }
      await this.launcher.start(preparedRunOf(run));
      this.log.warn(`run ${uuid} was recorded but never started: started it now`);
      return true;
    }
    const end = unrecordedEnd(run, execution, new Date());
    if (end && (await this.runs.end(interruptedEnding(run, end))))
      this.log.warn(`run ${uuid} was recorded in flight but its execution has ended: ${end.error_message}`);
    return false;
  }
}
