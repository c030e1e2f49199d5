// The built worker (dist/) as a child process, for tests that kill it the way a crash would.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { AppConfig } from '../../libs/config/src';
import { startApi, testConfig, type TestApi } from './api';
import { stackEnv, startBuilt, stopChild } from './built-app';
import { ModelFake } from './model-fake';

const ENTRY = path.resolve(__dirname, '../../dist/apps/worker/src/main.js');

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
        ...stackEnv(config),
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
