import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DomainError, ErrorCode, quarantineOf } from '@app/domain';
import { CallAuditRepository, RunRepository, type StaleRun } from '@app/persistence';
import { preparedRunOf } from '@app/runs';
import { RunLauncher } from '../temporal/run-launcher';
import { RunsService } from './runs.service';

/**
 * Runs recorded but never started (the API died between writing the rows and starting the workflow):
 * every RECONCILE_INTERVAL_SECONDS the API starts those whose execution is missing, and records the end of
 * those whose execution ended unrecorded. Safe on several replicas: a start of `run-<uuid>` joins an
 * execution that exists, so two replicas reconciling one run start it once. A run one of whose calls died
 * in flight with POISON_ATTEMPTS_LIMIT workers is never started again: it is ended failed (RUN_QUARANTINED).
 */
const PAGE = 50;

@Injectable()
export class RunReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('reconciler');
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<number> | null = null;

  constructor(
    private readonly runs: RunRepository,
    private readonly calls: CallAuditRepository,
    private readonly launcher: RunLauncher,
    private readonly service: RunsService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const { intervalSeconds } = this.config.reconciler;
    if (intervalSeconds === null) return;
    this.timer = setInterval(() => void this.pass().catch((error: unknown) => this.logger.warn(`reconciling failed: ${(error as Error).message}`)), intervalSeconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.passing?.catch(() => undefined);
  }

  /** One pass; how many runs it started. `afterSeconds` (default the setting): how old a run must be. */
  pass(afterSeconds = this.config.reconciler.afterSeconds): Promise<number> {
    this.passing ??= this.reconcile(afterSeconds).finally(() => (this.passing = null));
    return this.passing;
  }

  /**
   * Pages through every candidate: runs that are long but alive stay candidates, so a pass that stopped at a
   * first page of them would never reach a run recorded after them.
   */
  private async reconcile(afterSeconds: number): Promise<number> {
    let started = 0;
    for (let page = await this.runs.staleRunning(afterSeconds, PAGE); page.length; page = await this.runs.staleRunning(afterSeconds, PAGE, page.at(-1))) {
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
      this.logger.error(`run ${candidate.uuid} could not be started: ${(error as Error).message}`);
      return false;
    }
  }

  /** Whether it started the run. */
  private async reconcileOne({ uuid, user_id }: StaleRun): Promise<boolean> {
    const state = await this.launcher.observe(`run-${uuid}`);
    if (state.state === 'running') return false;
    if (state.state === 'closed') {
      await this.service.get(user_id, uuid); // records the end the execution had
      return false;
    }
    const run = await this.runs.find(user_id, uuid);
    if (!run || run.status !== 'running') return false;
    const quarantine = quarantineOf({ what: 'a call of the run', died: await this.calls.mostDiedAttempts(uuid) }, this.config.worker.poisonAttemptsLimit);
    if (quarantine) {
      await this.runs.finishRun(uuid, 'failed', quarantine.message);
      this.logger.warn(`run ${uuid} has no execution, and a call of it killed its workers: ended it as quarantined instead of starting it`);
      return false;
    }
    await this.launcher.start(preparedRunOf(run));
    this.logger.warn(`run ${uuid} was recorded but never started: started it now`);
    return true;
  }
}
