// Builds the Temporal worker over the Nest services: main.ts runs it, e2e tests run it in-process.
import { Module, type DynamicModule, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type AppConfig, ConfigModule } from '@app/config';
import { PersistenceModule, RunPreparer, RunRepository } from '@app/persistence';
import { createRunActivities } from './activities/run.activities';
import { AgentStepService } from './steps/agent-step.service';
import { LlmStepService } from './steps/llm-step.service';
import { GraphService } from './steps/graph.service';
import { ToolExecutorService } from './steps/tool-executor.service';
import { ConversationService } from './steps/conversation.service';
import { HumanInputService } from './steps/human-input.service';
import { LoopService } from './steps/loop.service';
import { NotificationService } from './steps/notification.service';
import { StopCheckerService } from './steps/stop-checker.service';
import { ToolCallService } from './steps/tool-call.service';
import { WorkerModule } from './worker.module';

@Module({})
class WorkerRootModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: WorkerRootModule, imports: [ConfigModule.forRoot(config), PersistenceModule, WorkerModule] };
  }
}

/** Where the workflow code comes from: the compiled folder in production, a prebuilt bundle in tests. */
export type WorkflowSource = Pick<WorkerOptions, 'workflowsPath'> | Pick<WorkerOptions, 'workflowBundle'>;

export interface RunWorker {
  worker: Worker;
  /** Resolves when the worker has stopped (after shutdown()). */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/** `logger` receives Nest's own lines; the Temporal SDK's go wherever the process installed its Runtime logger. */
export async function createRunWorker(config: AppConfig, workflows: WorkflowSource, logger?: LoggerService): Promise<RunWorker> {
  const context: INestApplicationContext = await NestFactory.createApplicationContext(WorkerRootModule.forRoot(config), { logger: logger ?? ['error', 'warn'] });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    shutdownGraceTime: `${config.worker.shutdownGraceSeconds}s`,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    ...workflows,
    activities: createRunActivities({
      llm: context.get(LlmStepService),
      agent: context.get(AgentStepService),
      tools: context.get(ToolCallService),
      stopChecker: context.get(StopCheckerService),
      loops: context.get(LoopService),
      graph: context.get(GraphService),
      toolExecutor: context.get(ToolExecutorService),
      humanInput: context.get(HumanInputService),
      conversation: context.get(ConversationService),
      notifications: context.get(NotificationService),
      runs: context.get(RunRepository),
      preparer: context.get(RunPreparer),
    }),
  });
  let running: Promise<void> | null = null;
  return {
    worker,
    run() {
      running ??= worker.run().finally(async () => {
        await connection.close();
        await context.close();
      });
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
