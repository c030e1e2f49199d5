// Typed settings, read and checked once at start-up: a bad value stops the process naming the variable.
import {
  LOOP_CONCURRENCY_CEILING,
  ASSISTANT_CORRECTION_ROUNDS,
  ASSISTANT_IDLE_TIMEOUT_SECONDS,
  ASSISTANT_MAX_STEPS,
  ASSISTANT_MAX_TOOL_CALLS_PER_ROUND,
  ASSISTANT_MAX_TOOL_ROUNDS,
  ASSISTANT_MAX_TURNS,
  ASSISTANT_MESSAGE_MAX_CHARS,
  LOOP_ITERATIONS_PER_EXECUTION,
  MODEL_PROVIDERS,
  type ModelProvider,
  TURNS_PER_EXECUTION,
} from '@app/contracts';
import { DEFAULT_EXPRESSION_BUDGET, type ExpressionBudget, SCHEMA_LIMITS, type SchemaLimits } from '@app/domain';
import { isIP } from 'node:net';
import { temporalConnectionOptions, type TemporalConnectionOptions } from './temporal-connection';
import { LOG_LEVELS, type LogSettings } from '@app/observability';
import { egressAllowIssue, type Keyring, parseKeyring } from '@app/security';
import { ConfigError } from './config-error';
import { costSettings, type CostSettings } from './cost-settings';
import { providerLimits, type ProviderLimit } from './provider-limits';

/** An abstract class rather than an interface so that it is also the Nest injection token. */
export abstract class AppConfig {
  declare readonly databaseUrl: string;
  /** Connections each process (API, worker) opens to MySQL at most, its two pools together (poolShares). */
  declare readonly databasePoolSize: number;
  /** `poisonAttemptsLimit`: attempts of one call that may die in flight with their worker before its run is quarantined. */
  declare readonly worker: {
    shutdownGraceSeconds: number;
    maxConcurrentActivities: number;
    maxEagerActivities: number;
    maxConcurrentWorkflowTasks: number;
    maxCachedWorkflows: number;
    poisonAttemptsLimit: number;
  };
  declare readonly temporal: {
    connection: Omit<TemporalConnectionOptions, 'address'>;
    address: string;
    namespace: string;
    taskQueue: string;
    webUiUrl: string;
    codecCorsOrigins: string[];
    codecMaxPayloads: number;
    codecMaxBytes: number;
    heartbeatTimeoutSeconds: number;
    conversationTurnsPerExecution: number;
    loopIterationsPerExecution: number;
  };
  /**
   * `trustProxy`: Express's `trust proxy` (false: a client is its socket's address; see trustProxy below).
   * `maxConnectionsPerAddress`: open connections one socket address may hold (null: no cap).
   */
  declare readonly api: {
    port: number;
    bodyLimitBytes: number;
    listenBacklog: number;
    trustProxy: TrustProxy;
    maxConnectionsPerAddress: number | null;
  };
  /**
   * The model providers and the provider of steps that name none. `openai` (any OpenAI-compatible server) is
   * always offered, and its `apiKey` is optional by design: local OpenAI-compatible servers (Ollama, vLLM,
   * llama.cpp) take none, and `npm start` runs without one. Null: requests carry no Authorization header, and
   * a provider that wants a key answers 401, which fails the step for good with the provider's own message.
   * The others are null when their key is not set (not offered then).
   */
  declare readonly providers: {
    default: ModelProvider;
    openai: { baseUrl: string; apiKey: string | null };
    anthropic: ProviderSettings | null;
    openrouter: ProviderSettings | null;
  };
  /** The keys that seal secrets at rest and Temporal payloads (ENCRYPTION_KEYS, first one active). */
  declare readonly security: { keyring: Keyring };
  declare readonly log: LogSettings;
  /** What the worker may fetch for users beyond the public internet: host names and CIDRs (EGRESS_ALLOW). */
  declare readonly egress: { allow: string[] };
  /** The most the worker reads of one answer of a user's tool or MCP server (TOOL_ANSWER_MAX_BYTES): past it the call fails. */
  declare readonly toolAnswers: { maxBytes: number };
  /**
   * A chain agent's tool call runs as a local activity (no task-queue round trip, stopped by a cancel within
   * about 8 s) when its timeout, an HTTP tool's own or its MCP server's, is at most `localMaxTimeoutMs`
   * (LOCAL_TOOL_CALL_MAX_TIMEOUT_MS); a longer one is an ordinary activity, heartbeating, visible in flight.
   */
  declare readonly toolCalls: { localMaxTimeoutMs: number };
  /** MCP servers users register: stdio ones start processes on the worker, so only when the operator allows it (MCP_STDIO). */
  declare readonly mcp: { stdioAllowed: boolean };
  /**
   * How old a webhook signature's timestamp may be (and how long a seen signature is remembered); the worker
   * threads that read and filter deliveries off the event loop, how many deliveries may wait for one (then
   * 503), and how long one may take there (then its thread is terminated, 503).
   */
  declare readonly webhooks: { toleranceSeconds: number; checkThreads: number; checkQueue: number; checkTimeLimitMs: number };
  /** Per API key requests a minute (and bursts); per user runs running or waiting at once. */
  /**
   * Models users may name (MODELS_ALLOWED entries: `model` of the default provider, `provider:model`,
   * `provider:*`; empty: any), the default and largest max_tokens of a call, and how long a call to any
   * provider may take (MODEL_TIMEOUT_MS). (DEFAULT_MODEL is what SUMMARY_MODEL and ASSISTANT_MODEL fall back to.)
   */
  declare readonly models: {
    allowed: string[];
    defaultMaxTokens: number;
    maxMaxTokens: number;
    timeoutMs: number;
    /** Steps' model calls stream (MODEL_STREAMING): their answers' pieces reach a run's watchers as they come. */
    stream: boolean;
  };
  /**
   * Workflows that compose: the most items a for_each may run at once (LOOP_MAX_CONCURRENCY, at most
   * LOOP_CONCURRENCY_CEILING), and how deep sub-workflows may nest (SUB_WORKFLOW_MAX_DEPTH).
   */
  declare readonly composition: { loopMaxConcurrency: number; subWorkflowMaxDepth: number };
  /** How often the API looks for runs recorded but never started (null: never), and how old they must be. */
  declare readonly reconciler: { intervalSeconds: number | null; afterSeconds: number };
  /** `address*`: per client address, requests no API key pays for (bad keys, webhooks, readiness). */
  declare readonly quotas: {
    requestsPerMinute: number;
    requestBurst: number;
    addressRequestsPerMinute: number;
    addressRequestBurst: number;
    maxRunsInFlightPerUser: number;
    scheduleMinIntervalSeconds: number;
    backfillMaxSpanSeconds: number;
    maxSchedulesPerWorkflow: number;
    maxSchedulesPerUser: number;
    workflowVersionsKept: number;
  };
  /** The step summary (generated_summary) of LLM and agent steps, asked of `model` in the background. */
  declare readonly summaries: { enabled: boolean; model: string };
  /**
   * The assistant: the model a session uses when it names none; how long an SSE stream waits without an event,
   * and how many one key holds open; tool calls run per model answer, messages a session takes, how long it
   * waits for one, and the most steps of a workflow it writes; rounds of tool calls per generation and
   * correction rounds per turn (a session keeps those of the API that started it); the longest message.
   */
  declare readonly assistant: {
    model: string;
    streamIdleSeconds: number;
    maxStreamsPerKey: number;
    maxToolCallsPerAnswer: number;
    maxMessages: number;
    idleTimeoutSeconds: number;
    maxSteps: number;
    maxToolRounds: number;
    correctionRounds: number;
    messageMaxChars: number;
  };
  /**
   * What one piece of a user's work may cost where it is evaluated (SECURITY.md): one JSONPath evaluation's
   * values visited and held (the domain's ExpressionBudget), a user JSON Schema at save (its SchemaLimits),
   * an example made up from a schema, the outputs a for_each gathers into one activity and the failed items'
   * errors it lists.
   */
  declare readonly limits: {
    expression: ExpressionBudget;
    schema: SchemaLimits;
    exampleMaxBytes: number;
    loopOutputMaxBytes: number;
    loopFailedErrorsListed: number;
  };
  /** Where GET /metrics is served (null: not at all); port 0 picks a free one. */
  /** OTLP/HTTP traces endpoint; null: tracing off. */
  declare readonly tracing: { otlpEndpoint: string | null };
  declare readonly metrics: { host: string; apiPort: number | null; workerPort: number | null };
  /** What model calls cost (the price table), who may spend how much, and whether metrics name users. */
  declare readonly costs: CostSettings;
  /** Each provider account's requests (and tokens) per minute, kept by every worker together (PROVIDER_LIMITS; none: no limiter). */
  declare readonly providerLimits: ReadonlyMap<ModelProvider, ProviderLimit>;
}

/** false, a number of proxy hops, or the proxies' addresses and CIDRs (and Express's names for ranges). */
export type TrustProxy = false | number | string[];

export interface ProviderSettings {
  baseUrl: string;
  apiKey: string;
}

/** The providers a step may name: openai, and those whose key is set. */
export function offeredProviders(config: Pick<AppConfig, 'providers'>): ModelProvider[] {
  return MODEL_PROVIDERS.filter((name) => name === 'openai' || config.providers[name] !== null);
}

/** The settings the definition checks apply (the domain's ModelPolicy). */
export function modelPolicyOf(config: Pick<AppConfig, 'models' | 'providers' | 'composition'>) {
  return {
    allowed: config.models.allowed,
    maxMaxTokens: config.models.maxMaxTokens,
    maxLoopConcurrency: config.composition.loopMaxConcurrency,
    providers: { offered: offeredProviders(config), default: config.providers.default },
  };
}

export { ConfigError };

type Env = Record<string, string | undefined>;

function integer(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${key} must be a positive integer, got "${raw}"`);
  return value;
}

/** One connection for each of a process's two MySQL pools at least. */
function atLeast(value: number, min: number, key: string): number {
  if (value < min) throw new ConfigError(`${key} must be at least ${min}, got ${value}`);
  return value;
}

function atMost(value: number, max: number, key: string): number {
  if (value > max) throw new ConfigError(`${key} must be at most ${max}, got ${value}`);
  return value;
}

function url(env: Env, key: string, fallback: string): string {
  const raw = env[key] || fallback;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${key} must be a URL, got "${raw}"`);
  }
  return raw;
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${key} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** OpenTelemetry's own variables: the traces endpoint, or the base endpoint with its /v1/traces path. */
function tracesEndpoint(env: Env): string | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces) return url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces);
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', base).replace(/\/$/, '')}/v1/traces` : null;
}

/**
 * How often a schedule may fire, at most a day apart: a cron's closest fires are reckoned as if every day
 * fired, so a floor past a day would refuse weekly crons too.
 */
function scheduleMinInterval(env: Env, key: string, fallback: number): number {
  const seconds = integer(env, key, fallback);
  if (seconds > 86_400) throw new ConfigError(`${key} must be at most 86400 (a day), got ${seconds}`);
  return seconds;
}

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * Whose address a request is (per-address limits, `request.protocol`): off, the socket's, right unless a
 * proxy sits in front (then every client would share the proxy's address); a number, that many proxy hops
 * are trusted to have set X-Forwarded-For; or the proxies' own addresses and CIDRs. Never "all": any client
 * could then name any address.
 */
function trustProxy(env: Env, key: string): TrustProxy {
  const raw = (env[key] ?? '').trim();
  if (raw === '' || raw === 'off') return false;
  if (/^\d+$/.test(raw)) return integer(env, key, 1);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !PROXY_RANGES.includes(entry) && !isAddressOrCidr(entry));
  if (bad !== undefined)
    throw new ConfigError(
      `${key} must be off, a number of proxy hops, or a comma-separated list of proxy addresses, CIDRs, ${PROXY_RANGES.join(', ')}; got "${bad}"`,
    );
  return entries;
}

/** A positive number of seconds, or `off` for never. */
function optionalPositive(env: Env, key: string, fallback: number): number | null {
  return env[key] === 'off' ? null : integer(env, key, fallback);
}

/**
 * Counted by the socket's address, before any request is read: behind a proxy every client shares the proxy's
 * address, so with API_TRUST_PROXY set there is no cap unless one is named.
 */
function maxConnectionsPerAddress(env: Env): number | null {
  const key = 'API_MAX_CONNECTIONS_PER_ADDRESS';
  if (env[key] === undefined || env[key] === '') return trustProxy(env, 'API_TRUST_PROXY') === false ? 64 : null;
  return optionalPositive(env, key, 64);
}

/** A port, or `off` for none. */
function optionalPort(env: Env, key: string, fallback: number): number | null {
  const raw = env[key];
  if (raw === 'off') return null;
  const port = integer(env, key, fallback);
  if (port > 65535) throw new ConfigError(`${key} must be a port (1-65535) or off, got "${raw}"`);
  return port;
}

/** A provider with its key set; null (not offered) without one. */
function provider(env: Env, prefix: string, defaultUrl: string): ProviderSettings | null {
  const apiKey = env[`${prefix}_API_KEY`];
  const baseUrl = url(env, `${prefix}_BASE_URL`, defaultUrl);
  return apiKey ? { baseUrl, apiKey } : null;
}

function providers(env: Env): AppConfig['providers'] {
  const configured = {
    anthropic: provider(env, 'ANTHROPIC', 'https://api.anthropic.com'),
    openrouter: provider(env, 'OPENROUTER', 'https://openrouter.ai/api/v1'),
  };
  const chosen = oneOf(env, 'DEFAULT_PROVIDER', MODEL_PROVIDERS, 'openai');
  if (chosen !== 'openai' && !configured[chosen])
    throw new ConfigError(`DEFAULT_PROVIDER is ${chosen}, but ${chosen.toUpperCase()}_API_KEY is not set`);
  // OPENAI_API_KEY is optional by design: see AppConfig.providers.
  const openai = { baseUrl: url(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1'), apiKey: env.OPENAI_API_KEY || null };
  return { default: chosen, openai, ...configured };
}

function egressAllow(env: Env, key: string): string[] {
  const entries = (env[key] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const issue = entries.map(egressAllowIssue).find(Boolean);
  if (issue) throw new ConfigError(`${key}: ${issue}`);
  return entries;
}

/** Origins allowed to call the codec endpoint from a browser: the Web UI's by default. */
function origins(env: Env, key: string, fallback: string): string[] {
  const entries = (env[key] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return (entries.length ? entries : [new URL(fallback).origin]).map((entry) => {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      throw new ConfigError(`${key} must be a comma-separated list of origins (scheme://host[:port]), got "${entry}"`);
    }
    if (origin !== entry.replace(/\/$/, '')) throw new ConfigError(`${key}: "${entry}" is not an origin (scheme://host[:port], no path)`);
    return origin;
  });
}

function temporalConnection(env: Env): Omit<TemporalConnectionOptions, 'address'> {
  try {
    const { address: _address, ...rest } = temporalConnectionOptions('', env);
    return rest;
  } catch (error) {
    throw new ConfigError(`Temporal connection settings (TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE): ${(error as Error).message}`);
  }
}

function keyring(env: Env, key: string): Keyring {
  const raw = env[key];
  if (!raw)
    throw new ConfigError(
      `${key} must be set: id:base64key[,id:base64key...] with 32-byte keys (openssl rand -base64 32); npm start and npm test make one in their data folder`,
    );
  try {
    return parseKeyring(raw);
  } catch (error) {
    throw new ConfigError(`${key}: ${(error as Error).message}`);
  }
}

function temporalSettings(env: Env): AppConfig['temporal'] {
  return {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    // TLS, an API key, gRPC metadata: Temporal's own environment configuration (TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE).
    connection: temporalConnection(env),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'stepwise-runs',
    webUiUrl: url(env, 'TEMPORAL_UI_URL', 'http://127.0.0.1:8233'),
    codecCorsOrigins: origins(env, 'TEMPORAL_CODEC_CORS_ORIGINS', url(env, 'TEMPORAL_UI_URL', 'http://127.0.0.1:8233')),
    // One codec request's payloads: each may cost an owner lookup in MySQL and a decryption.
    codecMaxPayloads: integer(env, 'TEMPORAL_CODEC_MAX_PAYLOADS', 1000),
    codecMaxBytes: integer(env, 'TEMPORAL_CODEC_MAX_BYTES', 4 * 1024 * 1024),
    // How soon a dead worker's activity is retried elsewhere.
    heartbeatTimeoutSeconds: integer(env, 'ACTIVITY_HEARTBEAT_TIMEOUT_SECONDS', 30),
    // Turns a conversational run's execution takes before it continues as new (keeps its history small).
    conversationTurnsPerExecution: integer(env, 'CONVERSATION_TURNS_PER_EXECUTION', TURNS_PER_EXECUTION),
    // Loop iterations an execution runs before it continues as new (same reason).
    loopIterationsPerExecution: integer(env, 'LOOP_ITERATIONS_PER_EXECUTION', LOOP_ITERATIONS_PER_EXECUTION),
  };
}

function limitSettings(env: Env): AppConfig['limits'] {
  return {
    // A million visits take about 9 ms of one core warm, 50 ms cold (bench/expressions.ts).
    expression: {
      maxNodesVisited: integer(env, 'EXPRESSION_MAX_NODES_VISITED', DEFAULT_EXPRESSION_BUDGET.maxNodesVisited),
      maxResults: integer(env, 'EXPRESSION_MAX_RESULTS', DEFAULT_EXPRESSION_BUDGET.maxResults),
    },
    schema: {
      // A schema is stored inside a step inside a definition: MariaDB checks JSON 31 levels deep at most.
      depth: atMost(integer(env, 'SCHEMA_MAX_DEPTH', SCHEMA_LIMITS.depth), 24, 'SCHEMA_MAX_DEPTH'),
      values: integer(env, 'SCHEMA_MAX_VALUES', SCHEMA_LIMITS.values),
      subschemas: integer(env, 'SCHEMA_MAX_SUBSCHEMAS', SCHEMA_LIMITS.subschemas),
      enumValues: integer(env, 'SCHEMA_MAX_ENUM_VALUES', SCHEMA_LIMITS.enumValues),
      patternsPerObject: integer(env, 'SCHEMA_MAX_PATTERNS_PER_OBJECT', SCHEMA_LIMITS.patternsPerObject),
      uniqueItemsMaxItems: integer(env, 'SCHEMA_UNIQUE_ITEMS_MAX_ITEMS', SCHEMA_LIMITS.uniqueItemsMaxItems),
      evaluations: integer(env, 'SCHEMA_MAX_EVALUATIONS', SCHEMA_LIMITS.evaluations),
      referenceDepth: integer(env, 'SCHEMA_MAX_REFERENCE_DEPTH', SCHEMA_LIMITS.referenceDepth),
      smallestInstanceBytes: integer(env, 'SCHEMA_SMALLEST_INSTANCE_MAX_BYTES', SCHEMA_LIMITS.smallestInstanceBytes),
    },
    // Four times the smallest instance a saved schema may ask for: an example of any saved schema fits.
    exampleMaxBytes: integer(env, 'EXAMPLE_MAX_BYTES', 256 * 1024),
    loopOutputMaxBytes: integer(env, 'LOOP_OUTPUT_MAX_BYTES', 8 * 1024 * 1024),
    // A for_each going on past failures lists every failed item in its output, the errors of this many (500
    // characters each): 10,000 errors would weigh 5 MB more on an output already up to LOOP_OUTPUT_MAX_BYTES.
    loopFailedErrorsListed: atMost(integer(env, 'LOOP_FAILED_ERRORS_LISTED', 100), 1000, 'LOOP_FAILED_ERRORS_LISTED'),
  };
}

function workerSettings(env: Env): AppConfig['worker'] {
  const worker = {
    // On SIGTERM the worker stops polling and lets activities in flight (a model call) finish this long
    // before it cancels them; the container's stop grace period must be longer.
    shutdownGraceSeconds: integer(env, 'WORKER_SHUTDOWN_GRACE_SECONDS', 30),
    // Most activities wait on a model or a tool, not on MySQL: 100 of them share the pool's connections,
    // each holding one only for its short statements.
    maxConcurrentActivities: integer(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES', 100),
    maxConcurrentWorkflowTasks: integer(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 100),
    // Activities a workflow task schedules that start on this worker at once, in its free slots, without
    // the task queue's round trip: a for_each's items side by side (the SDK's 3 spread 50 items' starts
    // over 700 ms on a loaded machine, BENCHMARKS.md).
    maxEagerActivities: integer(env, 'WORKER_MAX_EAGER_ACTIVITIES', 50),
    // Runs kept in memory between their workflow tasks (one evicted replays its history on its next
    // task). Stated, not the SDK's default: that one follows the heap limit, and the worker's heap is
    // bounded (--max-old-space-size=256), which would cut it to about 60, and the task slots with it.
    maxCachedWorkflows: integer(env, 'WORKER_MAX_CACHED_WORKFLOWS', 1000),
    // A call that was in flight on this many workers that died is stopped (RUN_QUARANTINED), not tried on
    // the next: a step that exhausts the heap would otherwise take down every worker of the fleet in turn.
    poisonAttemptsLimit: integer(env, 'POISON_ATTEMPTS_LIMIT', 3),
  };
  if (worker.maxCachedWorkflows < worker.maxConcurrentWorkflowTasks) {
    throw new ConfigError(
      `WORKER_MAX_CACHED_WORKFLOWS (${worker.maxCachedWorkflows}) must be at least WORKER_MAX_CONCURRENT_WORKFLOW_TASKS (${worker.maxConcurrentWorkflowTasks}): a task needs its run in the cache`,
    );
  }
  return worker;
}

export function loadConfig(env: Env = process.env): AppConfig {
  return {
    databaseUrl: url(env, 'DATABASE_URL', 'mysql://root@127.0.0.1:3306/stepwise'),
    // Each process's MySQL connections in all, so that processes × this stays under the server's
    // max_connections (151 by default): activities past it wait for a connection instead of being refused one.
    databasePoolSize: atLeast(integer(env, 'DATABASE_POOL_SIZE', 20), 2, 'DATABASE_POOL_SIZE'),
    worker: workerSettings(env),
    temporal: temporalSettings(env),
    api: {
      port: integer(env, 'API_PORT', 3000),
      bodyLimitBytes: integer(env, 'API_BODY_LIMIT_BYTES', 1024 * 1024),
      // Connections the kernel queues while the API is busy: Node's 511 refused part of a burst of 2,000
      // POST /runs (connect timeouts, resets). Linux caps it at net.core.somaxconn.
      listenBacklog: integer(env, 'API_LISTEN_BACKLOG', 4096),
      trustProxy: trustProxy(env, 'API_TRUST_PROXY'),
      maxConnectionsPerAddress: maxConnectionsPerAddress(env),
    },
    providers: providers(env),
    security: { keyring: keyring(env, 'ENCRYPTION_KEYS') },
    egress: { allow: egressAllow(env, 'EGRESS_ALLOW') },
    toolAnswers: { maxBytes: integer(env, 'TOOL_ANSWER_MAX_BYTES', 1024 * 1024) },
    // The default timeout of a registered tool and of an MCP server: their calls run local unless made longer.
    toolCalls: { localMaxTimeoutMs: integer(env, 'LOCAL_TOOL_CALL_MAX_TIMEOUT_MS', 30_000) },
    mcp: { stdioAllowed: oneOf(env, 'MCP_STDIO', ['on', 'off'] as const, 'off') === 'on' },
    webhooks: {
      toleranceSeconds: integer(env, 'WEBHOOK_TOLERANCE_SECONDS', 300),
      checkThreads: atMost(integer(env, 'WEBHOOK_CHECK_THREADS', 2), 64, 'WEBHOOK_CHECK_THREADS'),
      checkQueue: integer(env, 'WEBHOOK_CHECK_QUEUE', 32),
      checkTimeLimitMs: integer(env, 'WEBHOOK_CHECK_TIME_LIMIT_MS', 10_000),
    },
    models: {
      allowed: (env.MODELS_ALLOWED ?? '')
        .split(',')
        .map((model) => model.trim())
        .filter(Boolean),
      defaultMaxTokens: integer(env, 'DEFAULT_MAX_TOKENS', 4096),
      maxMaxTokens: integer(env, 'MAX_MAX_TOKENS', 32_768),
      timeoutMs: integer(env, 'MODEL_TIMEOUT_MS', 120_000),
      stream: oneOf(env, 'MODEL_STREAMING', ['on', 'off'] as const, 'on') === 'on',
    },
    composition: {
      loopMaxConcurrency: atMost(integer(env, 'LOOP_MAX_CONCURRENCY', 50), LOOP_CONCURRENCY_CEILING, 'LOOP_MAX_CONCURRENCY'),
      subWorkflowMaxDepth: integer(env, 'SUB_WORKFLOW_MAX_DEPTH', 5),
    },
    reconciler: {
      intervalSeconds: optionalPositive(env, 'RECONCILE_INTERVAL_SECONDS', 30),
      afterSeconds: integer(env, 'RECONCILE_AFTER_SECONDS', 60),
    },
    quotas: {
      requestsPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600),
      requestBurst: integer(env, 'RATE_LIMIT_BURST', 100),
      addressRequestsPerMinute: integer(env, 'ADDRESS_RATE_LIMIT_PER_MINUTE', 600),
      addressRequestBurst: integer(env, 'ADDRESS_RATE_LIMIT_BURST', 100),
      maxRunsInFlightPerUser: integer(env, 'MAX_RUNS_IN_FLIGHT_PER_USER', 1000),
      scheduleMinIntervalSeconds: scheduleMinInterval(env, 'SCHEDULE_MIN_INTERVAL_SECONDS', 60),
      backfillMaxSpanSeconds: integer(env, 'BACKFILL_MAX_SPAN_SECONDS', 7 * 86_400),
      // Each schedule is a Temporal Schedule: a workflow of Temporal's own, waking at every fire.
      maxSchedulesPerWorkflow: integer(env, 'SCHEDULES_MAX_PER_WORKFLOW', 10),
      maxSchedulesPerUser: integer(env, 'SCHEDULES_MAX_PER_USER', 100),
      // Each version holds a whole definition (up to API_BODY_LIMIT_BYTES): the oldest go past this many.
      workflowVersionsKept: integer(env, 'WORKFLOW_VERSIONS_KEPT', 100),
    },
    summaries: {
      enabled: oneOf(env, 'STEP_SUMMARIES', ['on', 'off'] as const, 'on') === 'on',
      model: env.SUMMARY_MODEL || env.DEFAULT_MODEL || 'gpt-4o-mini',
    },
    assistant: {
      model: env.ASSISTANT_MODEL || env.DEFAULT_MODEL || 'gpt-4o-mini',
      // Longer than a model call (MODEL_TIMEOUT_MS): a turn's stream rarely goes this long without an event.
      streamIdleSeconds: integer(env, 'SSE_IDLE_SECONDS', 300),
      maxStreamsPerKey: integer(env, 'SSE_MAX_STREAMS_PER_KEY', 5),
      // Each tool call is an activity in the session's history.
      maxToolCallsPerAnswer: integer(env, 'ASSISTANT_MAX_TOOL_CALLS_PER_ANSWER', ASSISTANT_MAX_TOOL_CALLS_PER_ROUND),
      // The conversation is rewritten whole on every turn: it stays a few MB at most.
      maxMessages: integer(env, 'ASSISTANT_MAX_MESSAGES', ASSISTANT_MAX_TURNS),
      idleTimeoutSeconds: integer(env, 'ASSISTANT_IDLE_SECONDS', ASSISTANT_IDLE_TIMEOUT_SECONDS),
      maxSteps: integer(env, 'ASSISTANT_MAX_STEPS', ASSISTANT_MAX_STEPS),
      // Each round is a model call and up to maxToolCallsPerAnswer activities in the session's history.
      maxToolRounds: atMost(integer(env, 'ASSISTANT_MAX_TOOL_ROUNDS', ASSISTANT_MAX_TOOL_ROUNDS), 20, 'ASSISTANT_MAX_TOOL_ROUNDS'),
      // Each round is a whole generation again, and a dry run: a turn's cost grows with it.
      correctionRounds: atMost(integer(env, 'ASSISTANT_CORRECTION_ROUNDS', ASSISTANT_CORRECTION_ROUNDS), 10, 'ASSISTANT_CORRECTION_ROUNDS'),
      // A message is an Update's argument in the session's history (Temporal refuses a payload past 2 MB) and
      // stays in the conversation every later turn rewrites: 200,000 characters is at most 800 KB of UTF-8.
      messageMaxChars: atMost(
        integer(env, 'ASSISTANT_MESSAGE_MAX_CHARS', ASSISTANT_MESSAGE_MAX_CHARS),
        200_000,
        'ASSISTANT_MESSAGE_MAX_CHARS',
      ),
    },
    limits: limitSettings(env),
    tracing: { otlpEndpoint: tracesEndpoint(env) },
    metrics: {
      host: env.METRICS_HOST || '127.0.0.1',
      apiPort: optionalPort(env, 'API_METRICS_PORT', 9464),
      workerPort: optionalPort(env, 'WORKER_METRICS_PORT', 9465),
    },
    costs: costSettings(env),
    providerLimits: providerLimits(env.PROVIDER_LIMITS),
    // auto: readable lines in a terminal (npm start), JSON lines otherwise.
    log: {
      level: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
      format: oneOf(env, 'LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    },
  };
}
