import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Client, ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { AppConfig, connectTemporalClient } from '@app/config';

/** The API's one Temporal connection, opened on first use so definitions work while Temporal starts; its payloads are encrypted. */
@Injectable()
export class TemporalClient implements OnApplicationShutdown {
  private pending: Promise<Client> | null = null;

  constructor(readonly config: AppConfig) {}

  get(): Promise<Client> {
    this.pending ??= connectTemporalClient(this.config, this.interceptors()).catch((error: unknown) => {
      this.pending = null;
      throw error;
    });
    return this.pending;
  }

  /** With tracing on, a started workflow carries the request's trace context in its headers. */
  private interceptors(): ClientInterceptors | undefined {
    return this.config.tracing.otlpEndpoint ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    const client = await this.pending?.catch(() => null);
    await client?.connection.close();
  }
}
