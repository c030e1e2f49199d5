// The worker's real Nest wiring (config, PersistenceModule, the step services) over the medium database,
// without the Temporal worker: specs take repositories and services from it as activities would.
import { randomBytes } from 'node:crypto';
import type { Abstract, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { loadConfig, type AppConfig } from '@app/config';
import type { ModelPrice } from '@app/domain';
import { Metrics } from '@app/observability';
import { WorkerRootModule } from '../../../apps/worker/src/create-worker';

export interface MediumOptions {
  /** The OpenAI-compatible base URL the model client calls (the model fake's). */
  modelBaseUrl?: string;
  /** Runs a user may have in flight at once (MAX_RUNS_IN_FLIGHT_PER_USER). */
  maxRunsInFlightPerUser?: number;
  /** MODEL_STREAMING (default the product's, on). */
  modelStreaming?: boolean;
  /** Prices by `provider:model` over the defaults (MODEL_PRICES_FILE's entries). */
  prices?: Record<string, ModelPrice>;
  /** The bounds on a user's work (EXPRESSION_*, SCHEMA_*, EXAMPLE_MAX_BYTES, LOOP_OUTPUT_MAX_BYTES; default the product's). */
  limits?: Partial<AppConfig['limits']>;
  /** The operator's spend limits per user in dollars (SPEND_LIMIT_DAILY_USD, SPEND_LIMIT_MONTHLY_USD). */
  spendLimits?: { daily?: number; monthly?: number };
  /** PROVIDER_LIMITS: each provider account's requests (and tokens) per minute, kept by the shared limiter. */
  providerLimits?: AppConfig['providerLimits'];
  /** Another DATABASE_URL (another MySQL user of the medium database), and DATABASE_POOL_SIZE (10 here). */
  databaseUrl?: string;
  databasePoolSize?: number;
}

export interface MediumApp {
  config: AppConfig;
  get<T>(token: Type<T> | Abstract<T>): T;
  /** For assertions on the rows written (test/medium/support/rows.ts). */
  db: DataSource;
  close(): Promise<void>;
}

function mediumConfig(options: MediumOptions): AppConfig {
  // A key of the run's own when npm test did not export one: nothing sealed here outlives the run.
  const base = loadConfig({ ENCRYPTION_KEYS: `medium:${randomBytes(32).toString('base64')}`, ...process.env });
  return {
    ...base,
    databaseUrl: options.databaseUrl ?? base.databaseUrl,
    databasePoolSize: options.databasePoolSize ?? 10,
    // Every spec's client is 127.0.0.1: a cap on its connections would refuse their bursts.
    api: { ...base.api, maxConnectionsPerAddress: null },
    // Only the fake: a key in the developer's environment must not send specs to a real provider.
    providers: {
      default: 'openai',
      openai: { baseUrl: options.modelBaseUrl ?? 'http://127.0.0.1:9/v1', apiKey: 'medium' },
      anthropic: null,
      openrouter: null,
    },
    quotas: { ...base.quotas, maxRunsInFlightPerUser: options.maxRunsInFlightPerUser ?? base.quotas.maxRunsInFlightPerUser },
    summaries: { ...base.summaries, enabled: false },
    models: { ...base.models, stream: options.modelStreaming ?? base.models.stream },
    limits: { ...base.limits, ...options.limits },
    providerLimits: options.providerLimits ?? new Map(),
    costs: {
      ...base.costs,
      prices: new Map([...base.costs.prices, ...Object.entries(options.prices ?? {})]),
      userDailyLimit: options.spendLimits?.daily ?? null,
      userMonthlyLimit: options.spendLimits?.monthly ?? null,
    },
    egress: { allow: ['127.0.0.0/8'] },
    log: { level: 'warn', format: 'json' },
    metrics: { host: '127.0.0.1', apiPort: null, workerPort: null },
    tracing: { otlpEndpoint: null },
  };
}

export async function startMedium(options: MediumOptions = {}): Promise<MediumApp> {
  const config = mediumConfig(options);
  const moduleRef: TestingModule = await Test.createTestingModule({
    imports: [WorkerRootModule.forRoot(config, new Metrics('worker'))],
  }).compile();
  await moduleRef.init();
  return {
    config,
    get: (token) => moduleRef.get(token, { strict: false }),
    db: moduleRef.get(DataSource, { strict: false }),
    close: () => moduleRef.close(),
  };
}
