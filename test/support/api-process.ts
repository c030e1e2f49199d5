// The built API (dist/) as a child process: for what must be measured on an API whose event loop is its own,
// not shared with the worker and jest (liveness while a hostile tenant attacks). It serves the database and
// task queue of the spec's stack, so the stack's keys and worker serve it too.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { AppConfig } from '../../libs/config/src';
import { ApiClient } from './api';
import { stackEnv, startBuilt, stopChild } from './built-app';

// From test/support, or from dist/test/support when a bench runs built.
const ROOT = path.resolve(__dirname, '../..');
const BUILT = 'apps/api/src/main.js';
const ENTRY = existsSync(path.join(ROOT, BUILT)) ? path.join(ROOT, BUILT) : path.join(ROOT, 'dist', BUILT);

/** A port free now (the OS picks it): the child binds it a moment later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export class ApiProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
  ) {}

  /** Starts the API with `config`'s database, Temporal and provider (`env` on top) and resolves once it answers. */
  static async start(
    config: AppConfig,
    env: Record<string, string> = {},
    timeoutMs = 60_000,
    nodeArgs: string[] = [],
  ): Promise<ApiProcess> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}/api/v1`;
    const { child } = await startBuilt(
      ENTRY,
      {
        ...stackEnv(config),
        API_PORT: String(port),
        API_METRICS_PORT: 'off',
        RECONCILE_INTERVAL_SECONDS: 'off',
        STEP_SUMMARIES: 'off',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        ...env,
      },
      async () => (await fetch(`${baseUrl}/health/live`)).ok,
      timeoutMs,
      nodeArgs,
    );
    return new ApiProcess(child, baseUrl);
  }

  /** The API's process id (what a bench reads its CPU time by). */
  get pid(): number {
    return this.child.pid!;
  }

  /** The same user (its key) as `client`, asking this API. */
  as(client: ApiClient): ApiClient {
    return new ApiClient(this.baseUrl, client.key, client.userId);
  }

  anonymous(): ApiClient {
    return new ApiClient(this.baseUrl, null, 'anonymous');
  }

  stop(): Promise<void> {
    return stopChild(this.child, 'SIGTERM');
  }
}
