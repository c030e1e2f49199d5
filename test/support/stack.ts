// The whole system for an e2e spec: the real API over HTTP, a real worker on its own task queue against
// the real Temporal server, the real MySQL, and the model fake as the provider.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { AppConfig } from '../../libs/config/src';
import { TemporalClient } from '../../apps/api/src/temporal/temporal-client';
import { createRunWorker, type RunWorker } from '../../apps/worker/src/create-worker';
import { startAnthropicFake } from './anthropic-fake';
import { ModelFake } from './model-fake';
import { startApi, testConfig, type ApiClient, type Reply, type TestApi } from './api';
import type { RunView, WorkflowDetailsView } from './views';
import { loadWorkflowBundle } from './workflow-bundle';

export interface Stack {
  api: TestApi;
  model: ModelFake;
  /** The Messages API fake serving the `anthropic` provider, when the options asked for it. */
  anthropic: ModelFake | null;
  worker: RunWorker;
  user: ApiClient;
  /** POST /workflows with these steps (and other workflow fields) under a fresh name; throws unless 201. */
  createWorkflow(steps: Record<string, unknown>[], fields?: Record<string, unknown>): Promise<WorkflowDetailsView>;
  /** POST /workflows/{uuid}/runs; throws unless 201. */
  startRun(workflowUuid: string, trigger_output?: unknown): Promise<RunView>;
  /** A new workflow of these steps, run once to its end. */
  runSteps(
    steps: Record<string, unknown>[],
    trigger_output?: unknown,
    options?: { fields?: Record<string, unknown>; timeoutMs?: number },
  ): Promise<RunView>;
  /** Polls GET /runs/{uuid} (as `user`, stack.user by default) until `done` holds (or the deadline passes): no sleeping on workflows. */
  waitForRun(runUuid: string, done?: (run: RunView) => boolean, timeoutMs?: number, user?: ApiClient): Promise<RunView>;
  startWorker(): Promise<RunWorker>;
  /** The API's own Temporal client, for what specs check in Temporal itself (histories, descriptions). */
  temporal(): Promise<Client>;
  close(): Promise<void>;
}

/** Any JSON object of an answer that has no view type in the API: read loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RunBody = Record<string, any>;

const finished = (run: RunView) => run.status !== 'running' && run.status !== 'awaiting_input';

function created<T>(reply: Reply<T>, what: string): T {
  if (reply.status !== 201) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

let runtimeInstalled = false;

/**
 * Worker state changes (INFO) and the failures tests provoke on purpose (WARN) would drown the output;
 * so would the native client's retry warnings while a spec has stopped Temporal.
 */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  runtimeInstalled = true;
}

export interface StackOptions {
  /** A Temporal server of the spec's own (test/support/temporal-dev-server.ts) instead of the shared one. */
  temporalAddress?: string;
  /** The worker's own DATABASE_URL (a MySQL user of its own, test/support/mysql-admin.ts). */
  workerDatabaseUrl?: string;
  /** Loop iterations a run's execution takes before it continues as new (default: the product's). */
  loopIterationsPerExecution?: number;
  /** Ask for step summaries on every save (off in the other specs, whose model scripts would get them). */
  summaries?: boolean;
  /** EGRESS_ALLOW of the API and the worker (default: loopback, where the specs' servers listen). */
  egressAllow?: string[];
  /** Quotas of the API (default: too high to matter). */
  quotas?: Partial<AppConfig['quotas']>;
  /** MODELS_ALLOWED and the max_tokens settings of the API and the worker. */
  models?: Partial<AppConfig['models']>;
  /** Offer the `anthropic` provider, served by a Messages API fake of its own (`stack.anthropic`). */
  anthropic?: boolean;
  /** Offer the `openrouter` provider (key `openrouter-key`), served by the same fake as `openai` (`stack.model`). */
  openrouter?: boolean;
  /** MCP_STDIO of the API and the worker (default off, the product's). */
  mcpStdio?: boolean;
  /** The assistant's settings (SSE_IDLE_SECONDS, SSE_MAX_STREAMS_PER_KEY...; default the product's). */
  assistant?: Partial<AppConfig['assistant']>;
  /** TEMPORAL_UI_URL of the API, which its codec endpoint also lets call it from the browser (CORS). */
  webUiUrl?: string;
  /** Prices by `provider:model` over the defaults, for the API and the worker (MODEL_PRICES_FILE's entries). */
  prices?: AppConfig['costs']['prices'];
  /** PROVIDER_LIMITS of the worker (default: none). */
  providerLimits?: AppConfig['providerLimits'];
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  quietRuntime();
  const model = await ModelFake.start();
  const anthropic = options.anthropic ? await startAnthropicFake() : null;
  const base = testConfig({
    modelBaseUrl: model.baseUrl,
    temporalAddress: options.temporalAddress,
    loopIterationsPerExecution: options.loopIterationsPerExecution,
  });
  const config = {
    ...base,
    summaries: { ...base.summaries, enabled: options.summaries ?? false },
    egress: { allow: options.egressAllow ?? base.egress.allow },
    quotas: { ...base.quotas, ...options.quotas },
    models: { ...base.models, ...options.models },
    providers: {
      ...base.providers,
      anthropic: anthropic && { baseUrl: anthropic.origin, apiKey: 'test-key' },
      openrouter: options.openrouter ? { baseUrl: model.baseUrl, apiKey: 'openrouter-key' } : null,
    },
    mcp: { stdioAllowed: options.mcpStdio ?? false },
    assistant: { ...base.assistant, ...options.assistant },
    costs: { ...base.costs, prices: new Map([...base.costs.prices, ...(options.prices ?? [])]) },
    providerLimits: options.providerLimits ?? base.providerLimits,
    temporal: options.webUiUrl ? { ...base.temporal, webUiUrl: options.webUiUrl, codecCorsOrigins: [options.webUiUrl] } : base.temporal,
  };
  const api = await startApi(config);
  const bundle = loadWorkflowBundle();
  const stack: Stack = {
    api,
    model,
    anthropic,
    worker: null as unknown as RunWorker,
    user: await api.newUser(),
    async startWorker() {
      const worker = await createRunWorker(
        { ...config, databaseUrl: options.workerDatabaseUrl ?? config.databaseUrl },
        { workflowBundle: bundle },
      );
      void worker.run();
      stack.worker = worker;
      return worker;
    },
    async createWorkflow(steps, fields = {}) {
      return created<WorkflowDetailsView>(
        await stack.user.post('/workflows', { name: `wf-${randomUUID().slice(0, 8)}`, steps, ...fields }),
        'POST /workflows',
      );
    },
    async startRun(workflowUuid, trigger_output = { text: 'hello' }) {
      return created<RunView>(
        await stack.user.post(`/workflows/${workflowUuid}/runs`, { trigger_output }),
        `POST /workflows/${workflowUuid}/runs`,
      );
    },
    temporal: () => api.app.get(TemporalClient).get(),
    async runSteps(steps, trigger_output, options = {}) {
      const workflow = await stack.createWorkflow(steps, options.fields);
      return stack.waitForRun((await stack.startRun(workflow.uuid, trigger_output)).uuid, finished, options.timeoutMs);
    },
    async waitForRun(runUuid, done = finished, timeoutMs = 60_000, user = stack.user) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { status, body }: Reply<RunView> = await user.get(`/runs/${runUuid}`);
        // A 404 (another user's run) has no status: it would pass for a finished run.
        if (status !== 200) throw new Error(`GET /runs/${runUuid}: ${status} ${JSON.stringify(body)}`);
        if (done(body)) return body;
        if (Date.now() > deadline)
          throw new Error(
            `run ${runUuid} still ${body.status} after ${timeoutMs} ms: ${JSON.stringify(body.steps?.map((s) => [s.name, s.status, s.error_message]))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await stack.worker?.shutdown();
      await api.close();
      await model.close();
      await anthropic?.close();
    },
  };
  await stack.startWorker();
  return stack;
}

/**
 * The lifecycle most specs share: one stack for the describe block, started before its tests and closed
 * after them, and a model fake that must have served its whole script (and nothing unscripted) by the end
 * of each test, then forgets it. `onStarted` hands the stack over, so the spec keeps a plain `let stack`.
 *
 * Jest runs hooks in the order they are registered, the `afterAll`s too: what the stack needs (a server of
 * its own, a MySQL user) is set up in a `beforeAll` before this call, read through `options` given as a
 * function, and torn down in an `afterAll` registered after it.
 */
export function useStack(onStarted: (stack: Stack) => void, options: StackOptions | (() => StackOptions) = {}): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(typeof options === 'function' ? options() : options);
    onStarted(stack);
  });
  afterEach(() => {
    for (const fake of [stack?.model, stack?.anthropic]) {
      fake?.assertDone();
      fake?.reset();
    }
  });
  afterAll(() => stack?.close());
}
