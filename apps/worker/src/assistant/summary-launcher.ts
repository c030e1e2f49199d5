// The worker's Temporal client for what an assistant's save starts: the step summaries a REST save asks for too.
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { AppConfig, connectTemporalClient } from '@app/config';
import { SUMMARIZE_STEP_WORKFLOW_TYPE, type SummarizeStepInput } from '@app/contracts';
import { SummaryLauncher, summaryWorkflowOptions } from '@app/definitions';

/** Its client is opened on first use and again after a failed connect, closed at shutdown; its payloads are encrypted. */
@Injectable()
export class WorkerSummaryLauncher extends SummaryLauncher implements OnApplicationShutdown {
  private client: Promise<Client> | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  async start(input: SummarizeStepInput): Promise<void> {
    const client = await this.connected();
    await client.workflow.start(SUMMARIZE_STEP_WORKFLOW_TYPE, summaryWorkflowOptions(input, this.config.temporal.taskQueue));
  }

  private connected(): Promise<Client> {
    // With tracing on, the summary's workflow carries the save's trace context in its headers.
    const interceptors = this.config.tracing.otlpEndpoint ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
    this.client ??= connectTemporalClient(this.config, interceptors).catch((error: unknown) => {
      this.client = null;
      throw error;
    });
    return this.client;
  }

  async onApplicationShutdown(): Promise<void> {
    const client = await this.client?.catch(() => null);
    await client?.connection.close();
  }
}

/** SummaryLauncher for the definitions' services in the worker (DefinitionsModule.forRoot). */
@Module({ providers: [{ provide: SummaryLauncher, useClass: WorkerSummaryLauncher }], exports: [SummaryLauncher] })
export class WorkerSummariesModule {}
