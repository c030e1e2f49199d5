import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Server } from 'node:http';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { Metrics, serveMetrics } from '@app/observability';

/** The API's GET /metrics, on API_METRICS_PORT: requests, runs started, and runs waiting for a person. */
@Injectable()
export class MetricsEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
    dataSource: DataSource,
  ) {
    metrics.gauge(
      'stepwise_runs_awaiting_input',
      'Runs waiting for a person (a human_input step, a conversation between messages)',
      async () => {
        const [row] = (await dataSource.query("SELECT COUNT(*) AS n FROM workflow_runs WHERE status = 'awaiting_input'")) as {
          n: number | string;
        }[];
        return Number(row.n);
      },
    );
  }

  /** Where it listens (null when API_METRICS_PORT is off). */
  get port(): number | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { apiPort, host } = this.config.metrics;
    if (apiPort === null) return;
    this.server = await serveMetrics(apiPort, host, () => this.metrics.registry.metrics());
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
