// The built worker (dist/) as a child process, for tests that kill it the way a crash would.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../libs/config/src';
import { startApi, testConfig, type TestApi } from './api';
import { ModelFake } from './model-fake';

const ENTRY = path.resolve(__dirname, '../../dist/apps/worker/src/main.js');

/**
 * A built app (dist/) as a child process with the environment given on top of this one's; resolves once it
 * prints `ready` (or `ready()` holds, asked every 100 ms), and gives what it printed so far (and goes on collecting).
 */
export async function startBuilt(
  entry: string,
  env: Record<string, string>,
  ready: string | (() => Promise<boolean>),
  timeoutMs: number,
): Promise<{ child: ChildProcess; printed: { text: string } }> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first (npm test does)`);
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = { text: '' };
  child.stdout!.on('data', (chunk: Buffer) => (printed.text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed.text += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before it started:\n${printed.text}`))),
  );
  const isReady = typeof ready === 'string' ? async () => printed.text.includes(ready) : ready;
  const started = (async () => {
    for (const deadline = Date.now() + timeoutMs; !(await isReady().catch(() => false));) {
      if (Date.now() > deadline) throw new Error(`${entry} did not start within ${timeoutMs} ms:\n${printed.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    await Promise.race([started, exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  exited.catch(() => undefined);
  return { child, printed };
}

/** Sends `signal` unless the child has ended; resolves once it has. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export class WorkerProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly printed: { text: string },
  ) {}

  /** Everything the worker wrote to stdout and stderr so far. */
  get output(): string {
    return this.printed.text;
  }

  /** Starts the worker and resolves once it polls its task queue. */
  static async start(config: AppConfig, timeoutMs = 60_000, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const { child, printed } = await startBuilt(
      ENTRY,
      {
        DATABASE_URL: config.databaseUrl,
        TEMPORAL_ADDRESS: config.temporal.address,
        TEMPORAL_NAMESPACE: config.temporal.namespace,
        TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
        OPENAI_BASE_URL: config.providers.openai.baseUrl,
        OPENAI_API_KEY: 'test-key',
        EGRESS_ALLOW: config.egress.allow.join(','),
        // Several spec files start workers at once: no fixed metrics port unless a spec asks for one.
        WORKER_METRICS_PORT: 'off',
        ...env,
      },
      'worker polling',
      timeoutMs,
    );
    return new WorkerProcess(child, printed);
  }

  /** SIGKILL: no shutdown hooks, no draining, in-flight activities are simply lost. Resolves once it is dead. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** SIGTERM: the worker drains and shuts down. */
  stop(): Promise<void> {
    return this.signal('SIGTERM');
  }

  private signal(signal: NodeJS.Signals): Promise<void> {
    return stopChild(this.child, signal);
  }
}

/** The API in-process, the model fake, and the worker as a child process: what a spec that kills workers shares. */
export interface WorkerProcessStack {
  model: ModelFake;
  api: TestApi;
  /** The worker running now: the spec starts it (and its successors) and the fixture stops the last one. */
  worker?: WorkerProcess;
}

/** Registers the fixture's hooks in the calling describe block. */
export function useWorkerProcessStack(): WorkerProcessStack {
  const stack = {} as WorkerProcessStack;
  beforeAll(async () => {
    stack.model = await ModelFake.start();
    stack.api = await startApi(testConfig({ modelBaseUrl: stack.model.baseUrl }));
  });
  afterAll(async () => {
    await stack.worker?.stop();
    await Promise.all([stack.api?.close(), stack.model?.close()]);
  });
  return stack;
}
