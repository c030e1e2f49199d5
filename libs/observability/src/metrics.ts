// What the API and the worker count, in Prometheus terms. Each process has its own registry (the tests run
// an API and a worker in one process), served on its own metrics port.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'stepwise_http_request_duration_seconds',
    help: 'API requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly runsStarted = new Counter({
    name: 'stepwise_runs_started_total',
    help: 'Runs recorded and started',
    registers: [this.registry],
  });
  readonly runsFinished = new Counter({
    name: 'stepwise_runs_finished_total',
    help: 'Runs ended, by final status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly activityDuration = new Histogram({
    name: 'stepwise_activity_duration_seconds',
    help: 'Activity attempts (a step, a model turn, a tool call, bookkeeping) by type and outcome',
    labelNames: ['activity', 'outcome'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly modelCalls = new Counter({
    name: 'stepwise_model_calls_total',
    help: 'Model calls by provider, model and outcome',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'stepwise_model_tokens_total',
    help: 'Tokens by provider, model and kind (prompt, completion)',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });
  readonly toolCalls = new Counter({
    name: 'stepwise_tool_calls_total',
    help: 'Tool calls by transport and outcome',
    labelNames: ['transport', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(readonly service: 'api' | 'worker') {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge read when scraped (e.g. runs awaiting input, counted in MySQL). */
  gauge(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read().catch(() => Number.NaN));
      },
    });
  }

  recordModelCall(
    provider: string,
    model: string,
    outcome: 'completed' | 'failed',
    usage?: { prompt_tokens: number; completion_tokens: number },
  ): void {
    this.modelCalls.inc({ provider, model, outcome });
    if (!usage) return;
    this.modelTokens.inc({ provider, model, kind: 'prompt' }, usage.prompt_tokens);
    this.modelTokens.inc({ provider, model, kind: 'completion' }, usage.completion_tokens);
  }
}
