// What the API and the worker count, in Prometheus terms. Each process has its own registry (the tests run
// an API and a worker in one process), served on its own metrics port.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const MODEL_CALL_LABELS = ['provider', 'model', 'workflow', 'user'] as const;

/** A model call's labels: `user` only where the operator allows a series per user. */
export interface ModelCallLabels {
  provider: string;
  model: string;
  workflow?: string;
  user?: string;
}

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
    help: 'Model calls by provider, model, workflow (and user when METRICS_USER_LABEL is on) and outcome',
    labelNames: [...MODEL_CALL_LABELS, 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'stepwise_model_tokens_total',
    help: 'Tokens by provider, model, workflow (and user when allowed) and kind (prompt, completion, cached: of the prompt, those from the provider cache)',
    labelNames: [...MODEL_CALL_LABELS, 'kind'] as const,
    registers: [this.registry],
  });
  readonly modelCost = new Counter({
    name: 'stepwise_model_cost_usd_total',
    help: 'Dollars model calls cost at the configured prices, by provider, model, workflow (and user when allowed); unpriced models count nothing here',
    labelNames: MODEL_CALL_LABELS,
    registers: [this.registry],
  });
  readonly modelUnpriced = new Counter({
    name: 'stepwise_model_calls_unpriced_total',
    help: 'Answered model calls whose model has no price (their cost is null)',
    labelNames: MODEL_CALL_LABELS,
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
    labels: ModelCallLabels,
    outcome: 'completed' | 'failed' | 'cached',
    usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number },
    cost?: number | null,
  ): void {
    this.modelCalls.inc({ ...labels, outcome });
    if (!usage) return;
    this.modelTokens.inc({ ...labels, kind: 'prompt' }, usage.prompt_tokens);
    this.modelTokens.inc({ ...labels, kind: 'completion' }, usage.completion_tokens);
    if (usage.cached_tokens) this.modelTokens.inc({ ...labels, kind: 'cached' }, usage.cached_tokens);
    if (cost === null) this.modelUnpriced.inc(labels);
    else if (cost !== undefined) this.modelCost.inc(labels, cost);
  }
}
