// The engine's workflow specs' environment, after the Temporal SDK's own integration helpers
// (sdk-typescript packages/test/src/helpers-integration.ts): the shared dev server (TEMPORAL_ADDRESS), the
// bundle the global set-up built once, and per run a worker of its own on a task queue of its own, whose
// activities are a spec's fakes.
import { randomUUID } from 'node:crypto';
import { WorkflowContinuedAsNewError, WorkflowFailedError, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import type { TemporalFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type PreparedRun, type RunWorkflowResult } from '@app/contracts';
import { engineBundlePath } from './engine-bundle';
import type { FakeActivities } from './fake-activities';

export interface RunUnderTest {
  handle: WorkflowHandle;
  /** The run's result once its last execution has ended; rejects with the failure's cause when it failed. */
  result(): Promise<RunWorkflowResult>;
  /** The cause of the run's failure (its ApplicationFailure, or the CancelledFailure); rejects when it completed. */
  failure(): Promise<TemporalFailure>;
  /** Waits for execution `runId` of the run to continue as new, and answers the new execution's run id. */
  nextExecution(runId: string): Promise<string>;
}

type Ending = { result: RunWorkflowResult } | { failure: WorkflowFailedError };

const NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';

let runtimeInstalled = false;

/** The failures specs provoke on purpose (WARN) would drown the output. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  runtimeInstalled = true;
}

/** Registers the spec file's hooks; `start` runs the run workflow over a spec's fakes. */
export function useEngine() {
  let env: TestWorkflowEnvironment;
  const open = new Set<{ handle: WorkflowHandle; ending: Promise<Ending> }>();

  beforeAll(async () => {
    quietRuntime();
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS, namespace: NAMESPACE });
  });
  // A spec that failed half-way leaves its run open: ending it stops its worker.
  afterEach(async () => {
    for (const run of open) {
      await run.handle.terminate('the spec is over').catch(() => undefined);
      await run.ending;
    }
    open.clear();
  });
  afterAll(async () => await env?.teardown());

  return {
    /** Starts `input` as the API would (workflow id `run-<uuid>`), on a worker whose activities are `fake`'s. */
    async start(
      input: PreparedRun,
      fake: FakeActivities,
      options: Pick<WorkflowStartOptions, 'workflowTaskTimeout'> = {},
    ): Promise<RunUnderTest> {
      const taskQueue = `engine-${(expect.getState().currentTestName ?? 'spec').replace(/\W+/g, '-').slice(0, 60)}-${randomUUID().slice(0, 8)}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: NAMESPACE,
        taskQueue,
        workflowBundle: { codePath: engineBundlePath() },
        activities: fake.activities,
      });
      // A bound for a run that would never end: the shared server does not keep it for ever.
      const handle = await env.client.workflow.start(RUN_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: runWorkflowId(input.run_uuid),
        args: [input],
        workflowExecutionTimeout: '3 minutes',
        ...options,
      });
      const ending: Promise<Ending> = worker.runUntil(handle.result()).then(
        (result: RunWorkflowResult) => ({ result }),
        (error: unknown) => {
          if (error instanceof WorkflowFailedError) return { failure: error };
          throw error;
        },
      );
      const run = { handle, ending };
      open.add(run);
      const ended = async (): Promise<Ending> => {
        const outcome = await ending;
        open.delete(run);
        if (fake.unexpected.length) throw new Error(`Activity calls the spec did not expect: ${fake.unexpected.join('; ')}`);
        return outcome;
      };
      return {
        handle,
        async result() {
          const outcome = await ended();
          if ('failure' in outcome) throw outcome.failure.cause ?? outcome.failure;
          return outcome.result;
        },
        async failure() {
          const outcome = await ended();
          if ('result' in outcome) throw new Error(`The run completed: ${JSON.stringify(outcome.result)}`);
          // A workflow failure always has its cause: the ApplicationFailure thrown, or the cancellation.
          return outcome.failure.cause as TemporalFailure;
        },
        async nextExecution(runId) {
          // Long-polls that execution's end, without following it into the next one.
          const ended = await env.client.workflow
            .getHandle(handle.workflowId, runId, { followRuns: false })
            .result()
            .catch((error: unknown) => error);
          if (ended instanceof WorkflowContinuedAsNewError) return ended.newExecutionRunId;
          throw new Error(`Execution ${runId} ended without continuing as new: ${String(ended)}`);
        },
      };
    },
  };
}
