// Builds the Temporal worker over the Nest services: main.ts runs it, e2e tests run it in-process.
import { Module, type DynamicModule, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type AppConfig, ConfigModule, temporalDataConverter } from '@app/config';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { Metrics, serveMetrics, startTracing } from '@app/observability';
import { CallAuditRepository, PersistenceModule, RunRepository, StepRepository } from '@app/persistence';
import { RunPreparer } from '@app/runs';
import { RunLifeServicesModule } from './run-life-services.module';
import { activityInterceptors } from './activity-interceptors';
import { createRunActivities } from './activities/run.activities';
import { createSummaryActivities } from './activities/summary.activities';
import { StepSummaryService } from './execution/step-summary.service';
import { AgentStepService } from './execution/agent-step.service';
import { LlmStepService } from './execution/llm-step.service';
import { GraphService } from './execution/graph.service';
import { ToolExecutorService } from './execution/tool-executor.service';
import { ConversationService } from './execution/conversation.service';
import { HumanInputService } from './execution/human-input.service';
import { LoopService } from './execution/loop.service';
import { SubWorkflowService } from './execution/sub-workflow.service';
import { WorkflowToolService } from './execution/workflow-tool.service';
import { NotificationService } from './execution/notification.service';
import { StopCheckerService } from './execution/stop-checker.service';
import { ToolCallService } from './execution/tool-call.service';
import { WorkerModule } from './worker.module';
import { AssistantWorkerModule } from './assistant/assistant.module';
import { AssistantModelService } from './assistant/assistant-model.service';
import { AssistantStagesService } from './assistant/assistant-stages.service';
import { createAssistantActivities } from './activities/assistant.activities';
import { createEvaluationActivities } from './activities/evaluation.activities';
import { EvaluationService } from './evaluations/evaluation.service';

/** The worker's services over config, persistence and MCP clients: exported for the medium specs, which use them without Temporal. */
@Module({})
export class WorkerRootModule {
  static forRoot(config: AppConfig, metrics: Metrics): DynamicModule {
    const metricsModule: DynamicModule = {
      module: WorkerRootModule,
      global: true,
      providers: [{ provide: Metrics, useValue: metrics }],
      exports: [Metrics],
    };
    return {
      ...metricsModule,
      imports: [ConfigModule.forRoot(config), PersistenceModule, RunLifeServicesModule, WorkerModule, AssistantWorkerModule],
    };
  }
}

/** Where the workflow code comes from: the compiled folder in production, a prebuilt bundle in tests. */
export type WorkflowSource = Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions'> | Pick<WorkerOptions, 'workflowBundle'>;

export interface RunWorker {
  worker: Worker;
  /** Where GET /metrics listens (null when WORKER_METRICS_PORT is off). */
  metricsPort: number | null;
  /** Resolves when the worker has stopped (after shutdown()). */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface RunWorkerOptions {
  /** Nest's own lines (the Temporal SDK's go wherever the process installed its Runtime logger). */
  logger?: LoggerService;
  /** The Temporal SDK's native Prometheus exporter, appended to GET /metrics. */
  sdkMetricsUrl?: string;
}

/** Every activity this worker runs, each a thin adapter over a service from the worker's Nest container. */
function activitiesOf(context: INestApplicationContext, metrics: Metrics) {
  const runActivities = createRunActivities({
    llm: context.get(LlmStepService),
    agent: context.get(AgentStepService),
    tools: context.get(ToolCallService),
    stopChecker: context.get(StopCheckerService),
    loops: context.get(LoopService),
    subWorkflows: context.get(SubWorkflowService),
    workflowTools: context.get(WorkflowToolService),
    graph: context.get(GraphService),
    toolExecutor: context.get(ToolExecutorService),
    humanInput: context.get(HumanInputService),
    conversation: context.get(ConversationService),
    notifications: context.get(NotificationService),
    runs: context.get(RunRepository),
    steps: context.get(StepRepository),
    calls: context.get(CallAuditRepository),
    preparer: context.get(RunPreparer),
    metrics,
  });
  return {
    ...runActivities,
    ...createSummaryActivities(context.get(StepSummaryService)),
    ...createAssistantActivities(context.get(AssistantModelService), context.get(AssistantStagesService)),
    ...createEvaluationActivities(context.get(EvaluationService)),
  };
}

export async function createRunWorker(config: AppConfig, workflows: WorkflowSource, options: RunWorkerOptions = {}): Promise<RunWorker> {
  const metrics = new Metrics('worker');
  const tracing = config.tracing.otlpEndpoint ? startTracing('stepwise-worker', config.tracing.otlpEndpoint) : null;
  const context: INestApplicationContext = await NestFactory.createApplicationContext(WorkerRootModule.forRoot(config, metrics), {
    logger: options.logger ?? ['error', 'warn'],
  });
  const connection = await NativeConnection.connect({ ...config.temporal.connection, address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Encrypts what workflows and activities write to the history (and decrypts what they read).
    dataConverter: temporalDataConverter(config),
    shutdownGraceTime: `${config.worker.shutdownGraceSeconds}s`,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxEagerActivityReservationsPerWorkflowTask: config.worker.maxEagerActivities,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    interceptors: { activity: [activityInterceptors(metrics)] },
    // Workflow and activity spans under the trace the starting request carried (workflow spans leave
    // through the SDK's sink, so a replay does not export them twice).
    plugins: tracing ? [new OpenTelemetryPlugin({ resource: tracing.resource, spanProcessor: tracing.spanProcessor })] : [],
    ...workflows,
    activities: activitiesOf(context, metrics),
  });
  const { workerPort, host } = config.metrics;
  // The SDK's own Prometheus endpoint on this host: the operator's loopback, not a request for a user, so
  // plain fetch (the egress policy would refuse loopback, and it guards users' URLs only).
  const sdkMetrics = options.sdkMetricsUrl;
  const metricsServer =
    workerPort === null
      ? null
      : await serveMetrics(
          workerPort,
          host,
          () => metrics.registry.metrics(),
          sdkMetrics ? () => fetch(sdkMetrics).then((answer) => answer.text()) : undefined,
        );
  let running: Promise<void> | null = null;
  return {
    worker,
    metricsPort: (metricsServer?.address() as { port: number } | null)?.port ?? null,
    run() {
      running ??= worker.run().finally(async () => {
        await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
        await connection.close();
        await context.close();
        await tracing?.shutdown();
      });
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
