// The system under measurement, as `npm start` runs it: the built API and worker as their own processes,
// on the real Temporal server and MySQL, with the model fake as the provider.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { connectTemporalClient, loadConfig, type AppConfig } from '@app/config';
import { runWorkflowId } from '@app/contracts';
import { createDataSource, migrateDatabase, TypeormApiKeyRepository } from '@app/persistence';
import { ApiKeyService } from '../../apps/api/src/auth/api-key.service';

const DIST = path.resolve(__dirname, '../..');

export interface ProcessMemory {
  rss_mb: number;
  peak_rss_mb: number;
}

/** Current and peak resident memory of a process, from /proc (Linux). */
export function memoryOf(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss_mb: Math.round(kb('VmRSS') / 1024), peak_rss_mb: Math.round(kb('VmHWM') / 1024) };
}

/**
 * `nodeArgs`: the process's own Node options (the worker's heap bound); `BENCH_NODE_ARGS` in `env`, the
 * bench's (e.g. --cpu-prof, which NODE_OPTIONS refuses).
 */
export function startProcess(entry: string, env: NodeJS.ProcessEnv, ready: string, nodeArgs: string[] = []): Promise<ChildProcess> {
  const benchArgs = env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...benchArgs, path.join(DIST, entry)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), 60_000);
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(ready)) return;
      clearTimeout(timer);
      // Ready: what it writes from now on (the API's access log) is drained unread. Kept, every line would be
      // a scan of the whole log so far, on the cores the measured system runs on.
      for (const stream of [child.stdout!, child.stderr!]) stream.off('data', watch).resume();
      output = '';
      resolve(child);
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    child.on('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${output}`)));
  });
}

export interface System {
  config: AppConfig;
  /** The environment its API and worker were started with. */
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  key: string;
  api: ChildProcess;
  worker: ChildProcess;
  temporal: Client;
  /** POST /workflows with these steps; returns the workflow uuid. */
  createWorkflow(steps: unknown[]): Promise<string>;
  /** POST /workflows/{uuid}/runs; returns the run uuid. */
  startRun(workflowUuid: string): Promise<string>;
  /** Waits on the Temporal workflow's result: no polling. */
  waitForRun(runUuid: string): Promise<{ status: string }>;
  get(path: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** `extraEnv`: settings of this system's API and worker beyond the bench's own (e.g. tracing on). */
export async function startSystem(modelBaseUrl: string, extraEnv: Record<string, string> = {}): Promise<System> {
  const base = loadConfig();
  // Below 3659, which fetch refuses to call (a "bad port" of the Fetch standard): 3400-3649.
  const port = 3400 + Math.floor(Math.random() * 250);
  const taskQueue = `bench-${randomUUID()}`;
  const config: AppConfig = {
    ...base,
    temporal: { ...base.temporal, taskQueue },
    api: { ...base.api, port },
    providers: { ...base.providers, openai: { ...base.providers.openai, baseUrl: modelBaseUrl } },
  };
  await migrateDatabase(config.databaseUrl);

  const dataSource = await createDataSource(config.databaseUrl).initialize();
  const { key } = await new ApiKeyService(new TypeormApiKeyRepository(dataSource)).create(`bench-${randomUUID()}`, 'bench');
  await dataSource.destroy();

  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: config.databaseUrl,
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    API_PORT: String(port),
    OPENAI_BASE_URL: modelBaseUrl,
    OPENAI_API_KEY: 'bench',
    // No fixed ports beside the API's: a second system may run.
    API_METRICS_PORT: 'off',
    // The bench's tool server is on loopback; its one user fires thousands of requests and runs.
    EGRESS_ALLOW: '127.0.0.0/8',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_BURST: '1000000',
    // Its bursts (thousands of run starts at once) all come from loopback: no cap on one address's connections.
    API_MAX_CONNECTIONS_PER_ADDRESS: 'off',
    MAX_RUNS_IN_FLIGHT_PER_USER: '1000000',
    WORKER_METRICS_PORT: 'off',
    // As npm start and the image run them.
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...extraEnv,
  };
  const [api, worker] = await Promise.all([
    startProcess('apps/api/src/main.js', env, 'API listening'),
    // As npm start runs it: with its heap bound.
    startProcess('apps/worker/src/main.js', env, 'worker polling', [`--max-old-space-size=${process.env.WORKER_HEAP_MB ?? 256}`]),
  ]);
  const temporal = await connectTemporalClient(config);
  const apiUrl = `http://127.0.0.1:${port}/api/v1`;

  async function call(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${apiUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  }

  return {
    config,
    env,
    apiUrl,
    key,
    api,
    worker,
    temporal,
    createWorkflow: async (steps) =>
      (await call('POST', '/workflows', { name: `bench-${randomUUID().slice(0, 8)}`, steps })).uuid as string,
    startRun: async (workflowUuid) =>
      (await call('POST', `/workflows/${workflowUuid}/runs`, { trigger_output: { bench: true } })).uuid as string,
    waitForRun: (runUuid) => resultOf(temporal, runUuid),
    get: (route) => call('GET', route),
    async stop() {
      await temporal.connection.close();
      for (const child of [api, worker]) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/**
 * A run's result. Each wait is a long poll of its history, and the server refuses those past its limit per
 * namespace (a burst awaits 2,000 runs at once): that refusal is the bench client's, not the run's, so the
 * wait asks again.
 */
async function resultOf(temporal: Client, runUuid: string): Promise<{ status: string }> {
  for (;;) {
    try {
      return await temporal.workflow.getHandle(runWorkflowId(runUuid)).result();
    } catch (error) {
      if (!/RESOURCE_EXHAUSTED/.test(reasonOf(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 + Math.random() * 500));
    }
  }
}

/** An error's message with its causes' (fetch wraps the socket error), cut to one line. */
export function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let current = error as { message?: string; cause?: unknown } | undefined; current; current = current.cause as typeof current)
    parts.push(current.message ?? String(current));
  return parts.join(': ').slice(0, 200);
}
