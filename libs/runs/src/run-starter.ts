import { randomUUID } from 'node:crypto';
import { isInFlight, runWorkflowId } from '@app/contracts';
import { DomainError, ErrorCode, notFound } from '@app/domain';
import type { Metrics } from '@app/observability';
import type { RunRepository, RunWithSteps } from '@app/persistence';
import { runEnding } from './run-ending';
import type { RunLauncher } from './run-launcher';
import type { RunLog } from './run-log';
import type { Prepared, RunPreparer, RunRequest } from './run-preparer';
import type { ReplayRequest, RunReplayer } from './run-replayer';
import type { ResumeRequest, RunResumer } from './run-resumer';

/** A start: whose, of which workflow, with what; `runUuid` (default a new one) names the run a repeat finds. */
export type StartRequest = Omit<RunRequest, 'runUuid' | 'temporalWorkflowId'> & { runUuid?: string };

/** A started run: `created` false when the uuid named a run started before (its repeat). */
export interface StartedRun {
  created: boolean;
  run: RunWithSteps;
}

/**
 * How a run starts, whoever starts it (REST, MCP, a webhook, an immediate schedule): recorded (RunPreparer,
 * or RunResumer for a resume), then its execution started (`run-<uuid>`). A start Temporal could not take
 * leaves nothing behind; one it refused ends the run failed. The reconciler starts a run whose API died in
 * between.
 */
export class RunStarter {
  constructor(
    private readonly preparer: RunPreparer,
    private readonly resumer: RunResumer,
    private readonly runs: RunRepository,
    private readonly launcher: RunLauncher,
    private readonly metrics: Metrics,
    private readonly log: RunLog,
    private readonly replayer: RunReplayer,
  ) {}

  async start(request: StartRequest): Promise<StartedRun> {
    const runUuid = request.runUuid ?? randomUUID();
    return this.launch(request.userId, await this.preparer.prepare({ ...request, runUuid, temporalWorkflowId: runWorkflowId(runUuid) }));
  }

  /** A new run linked to its parent, from a step, the earlier outputs carried over. */
  async resume(request: Omit<ResumeRequest, 'temporalWorkflowId'>): Promise<StartedRun> {
    return this.launch(request.userId, await this.resumer.prepare({ ...request, temporalWorkflowId: runWorkflowId(request.runUuid) }));
  }

  /** A replay of an ended run through a target definition, answered from its record where it asks the same. */
  async replay(request: Omit<ReplayRequest, 'temporalWorkflowId'>): Promise<StartedRun> {
    return this.launch(request.userId, await this.replayer.prepare({ ...request, temporalWorkflowId: runWorkflowId(request.runUuid) }));
  }

  /**
   * Starts the execution of a recorded run. A run recorded by an earlier request (same key) is started
   * again while it is recorded running: Temporal's conflict policy joins the execution if it exists, so a
   * request that died between recording and starting is completed by its repeat.
   */
  private async launch(userId: string, { created, run, written }: Prepared): Promise<StartedRun> {
    const recorded = created ? null : await this.find(userId, run.run_uuid);
    if (created || (recorded && isInFlight(recorded.status))) {
      try {
        await this.launcher.start(run);
      } catch (error) {
        this.log.error(`run ${run.run_uuid} could not start: ${(error as Error).message}`);
        // Temporal down: the request leaves nothing behind and can simply be repeated.
        if (created && error instanceof DomainError && error.code === ErrorCode.TemporalUnavailable)
          await this.runs.discardUnstarted(run.run_uuid);
        // The reason is in the log line above; Temporal's own wording is not the user's business.
        else if (created)
          await this.runs.end(
            runEnding(run.run_uuid, {
              status: 'failed',
              error_message: 'The run could not be started: Temporal refused it (see the API log for this run)',
            }),
          );
        throw error;
      }
    }
    if (created) {
      this.metrics.runsStarted.inc();
      this.log.log({ msg: 'run started', run_uuid: run.run_uuid, workflow_uuid: run.definition.uuid });
    }
    // A repeat answers with the run as it read it: starting its execution again changes no row. A new run
    // answers as it was written (its workflow may have moved it on since: a read shows that).
    return { created, run: recorded ?? written ?? (await this.find(userId, run.run_uuid)) };
  }

  private async find(userId: string, runUuid: string): Promise<RunWithSteps> {
    const run = await this.runs.find(userId, runUuid);
    if (!run) throw notFound('Run', runUuid);
    return run;
  }
}
