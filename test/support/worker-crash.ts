// The fault both worker-crash specs inject: a `lookup` tool whose third call (n = 3) kills the worker
// with SIGKILL while the call is in flight (or a kill when the spec says), then a new worker process that
// picks the run up.
import { startApi, testConfig, type ApiClient, type TestApi } from './api';
import { ModelFake } from './model-fake';
import type { RunBody } from './stack';
import { ToolServer } from './tool-server';
import { WorkerProcess } from './worker-process';

export interface WorkerCrash {
  model: ModelFake;
  api: TestApi;
  tools: ToolServer;
  /** Starts the first worker, for the run the spec is about to start. */
  startWorker(): Promise<void>;
  /** Waits until the third call killed the worker (its connection closed), then starts a new one. */
  restartAfterCrash(): Promise<void>;
  /** Kills the worker now (SIGKILL), whatever it is doing, then starts a new one. */
  killAndRestart(): Promise<void>;
  /** Polls the run until it is no longer running (90 s at most). */
  runEnd(user: ApiClient, runUuid: string): Promise<RunBody>;
}

/** Registers the fixture's hooks in the calling describe block. */
export function useWorkerCrash(): WorkerCrash {
  let worker: WorkerProcess | undefined;
  let killed = false;
  const crash = {} as WorkerCrash;
  beforeAll(async () => {
    crash.model = await ModelFake.start();
    crash.api = await startApi(testConfig({ modelBaseUrl: crash.model.baseUrl }));
    crash.tools = await ToolServer.start({
      lookup: async (args, call) => {
        const { n } = args as { n: number };
        if (n === 3 && !killed) {
          // The third call is in flight: the worker dies before it gets the answer. Waiting for its exit
          // and then for this call's socket to close means the answer below is never written.
          killed = true;
          await worker!.kill();
          await crash.tools.waitUntil(
            () => call.aborted,
            10_000,
            () => "the killed worker's connection is still open",
          );
        }
        return { n, value: n * 10 };
      },
    });
  });
  // A case after another starts clean: the last case's worker stopped, the fault armed again, no tool calls
  // or model requests left over.
  beforeEach(async () => {
    await worker?.stop();
    worker = undefined;
    killed = false;
    crash.tools.reset();
    crash.model.reset();
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([crash.api?.close(), crash.model?.close(), crash.tools?.close()]);
  });
  crash.startWorker = async () => {
    worker = await WorkerProcess.start(crash.api.config);
  };
  crash.restartAfterCrash = async () => {
    await crash.tools.waitUntil(
      () => killed && crash.tools.calls.some((call) => call.aborted),
      60_000,
      () => 'the third tool call never arrived',
    );
    worker = await WorkerProcess.start(crash.api.config);
  };
  crash.killAndRestart = async () => {
    await worker!.kill();
    worker = await WorkerProcess.start(crash.api.config);
  };
  crash.runEnd = async (user, runUuid) => {
    let body = (await user.get(`/runs/${runUuid}`)).body;
    for (const deadline = Date.now() + 90_000; body.status === 'running' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      body = (await user.get(`/runs/${runUuid}`)).body;
    }
    return body;
  };
  return crash;
}
