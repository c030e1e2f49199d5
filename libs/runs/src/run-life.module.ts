// The Nest wiring of a run's life, the one file of this library that knows Nest and the settings (lint holds
// it): the plain classes over persistence's repositories and, in the API, the RunLauncher its TemporalModule
// gives.
import { type DynamicModule, Logger, Module, type Provider, type Type } from '@nestjs/common';
import { AppConfig, modelPolicyOf } from '@app/config';
import { Metrics } from '@app/observability';
import {
  CallAuditRepository,
  McpToolCatalog,
  PersistenceModule,
  RunRepository,
  SpendRepository,
  ToolRepository,
  WorkflowRepository,
  WorkflowVersionRepository,
} from '@app/persistence';
import { RunInteractions } from './run-interactions';
import { RunLauncher } from './run-launcher';
import { RunPreparer } from './run-preparer';
import { RunReader } from './run-reader';
import { RunReconciler } from './run-reconciler';
import { RunReplayer } from './run-replayer';
import { RunResumer } from './run-resumer';
import { RunStarter } from './run-starter';
import { SpendPolicy } from './spend-policy';
import { SpendRechecks } from './spend-rechecks';
import { ToolManifestService } from './tool-manifest.service';

/** What both apps use: the worker records scheduled runs and the assistant's dry runs, and saves manifests. */
const recording: Provider[] = [
  {
    provide: ToolManifestService,
    useFactory: (tools: ToolRepository, mcpTools: McpToolCatalog) => new ToolManifestService(tools, mcpTools),
    inject: [ToolRepository, McpToolCatalog],
  },
  {
    provide: SpendPolicy,
    useFactory: (spend: SpendRepository, config: AppConfig) =>
      new SpendPolicy(spend, { daily: config.costs.userDailyLimit, monthly: config.costs.userMonthlyLimit }),
    inject: [SpendRepository, AppConfig],
  },
  {
    provide: RunPreparer,
    useFactory: (
      workflows: WorkflowRepository,
      runs: RunRepository,
      toolManifests: ToolManifestService,
      config: AppConfig,
      spend: SpendPolicy,
    ) => new RunPreparer(workflows, runs, toolManifests, modelPolicyOf(config), spend, config.composition.subWorkflowMaxDepth),
    inject: [WorkflowRepository, RunRepository, ToolManifestService, AppConfig, SpendPolicy],
  },
];

/** The API's, through its RunLauncher: starting, resuming, reading, steering and reconciling runs. */
const launching: Provider[] = [
  {
    provide: RunResumer,
    useFactory: (workflows: WorkflowRepository, runs: RunRepository) => new RunResumer(workflows, runs),
    inject: [WorkflowRepository, RunRepository],
  },
  {
    provide: RunStarter,
    useFactory: (
      preparer: RunPreparer,
      resumer: RunResumer,
      runs: RunRepository,
      launcher: RunLauncher,
      metrics: Metrics,
      versions: WorkflowVersionRepository,
    ) => new RunStarter(preparer, resumer, runs, launcher, metrics, new Logger('runs'), new RunReplayer(runs, preparer, versions)),
    inject: [RunPreparer, RunResumer, RunRepository, RunLauncher, Metrics, WorkflowVersionRepository],
  },
  {
    provide: RunReader,
    useFactory: (runs: RunRepository, launcher: RunLauncher) => new RunReader(runs, launcher, new Logger('runs')),
    inject: [RunRepository, RunLauncher],
  },
  {
    provide: RunInteractions,
    useFactory: (reader: RunReader, launcher: RunLauncher) => new RunInteractions(reader, launcher),
    inject: [RunReader, RunLauncher],
  },
  {
    // Its start-up pass re-checks paused runs under the operator's limits as they are now.
    provide: SpendRechecks,
    useFactory: (spend: SpendRepository, launcher: RunLauncher, config: AppConfig) =>
      new SpendRechecks(spend, launcher, config.quotas.maxRunsInFlightPerUser, new Logger('spend')),
    inject: [SpendRepository, RunLauncher, AppConfig],
  },
  {
    // Its passes start with the API (RECONCILE_INTERVAL_SECONDS): Nest calls its lifecycle hooks.
    provide: RunReconciler,
    useFactory: (runs: RunRepository, calls: CallAuditRepository, launcher: RunLauncher, config: AppConfig) =>
      new RunReconciler(
        runs,
        calls,
        launcher,
        { ...config.reconciler, poisonAttemptsLimit: config.worker.poisonAttemptsLimit },
        new Logger('reconciler'),
      ),
    inject: [RunRepository, CallAuditRepository, RunLauncher, AppConfig],
  },
];

/** A run's life (`@app/runs`) wired for each app, which imports the result once and hands it on (one instance). */
@Module({})
export class RunLifeModule {
  static forWorker(): DynamicModule {
    return { module: RunLifeModule, imports: [PersistenceModule], providers: recording, exports: recording };
  }

  /** The API also starts runs: `launcher` is its module that provides the RunLauncher (its TemporalModule). */
  static forApi(launcher: Type<unknown>): DynamicModule {
    const providers = [...recording, ...launching];
    return { module: RunLifeModule, imports: [PersistenceModule, launcher], providers, exports: providers };
  }
}
