import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { startTracing, type Tracing } from '@app/observability';

/** The API's tracing, started with the app when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, flushed when it stops. */
@Injectable()
export class TracingService implements OnApplicationShutdown {
  private readonly tracing: Tracing | null;

  constructor(config: AppConfig) {
    this.tracing = config.tracing.otlpEndpoint ? startTracing('stepwise-api', config.tracing.otlpEndpoint) : null;
  }

  get enabled(): boolean {
    return this.tracing !== null;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tracing?.shutdown();
  }
}
