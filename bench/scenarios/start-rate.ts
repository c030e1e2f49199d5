// Floor: `POST /workflows/{uuid}/runs` alone. A second API process of the same system starts runs on a task
// queue nobody polls, so what is measured is the request, its rows and the workflow start, nothing after.
// Every execution it started is terminated at the end (the API's reconciler then records their end).
// Beside it, in the same minute, the floor: the same workflow start (input, memo, summary, search
// attributes, the same payload codec) sent straight to Temporal by a client at the same concurrency.
import { randomUUID } from 'node:crypto';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type WorkflowDefinition } from '@app/contracts';
import { runSearchAttributes } from '../../apps/api/src/temporal/search-attributes';
import { startProcess, type System } from '../support/system';
import { measureThroughput, type ThroughputSample } from './throughput';

export const START_CONCURRENCY = 50;

export interface StartRateResult {
  concurrency: number;
  /** The task queue nobody polls that the runs were started on. */
  task_queue: string;
  requests_per_second: number;
  /** Bare Temporal: workflow starts per second, the same start sent by a client alone. */
  bare_starts_per_second: number;
  /** requests_per_second / bare_starts_per_second. */
  vs_bare: number;
  errors: number;
  failures: Record<string, number>;
  latency_ms: ThroughputSample['latency_ms'];
  terminated: number;
}

export async function measureStartRate(system: System, periodMs: number, concurrency = START_CONCURRENCY): Promise<StartRateResult> {
  const port = Number(system.env.API_PORT) + 1;
  const taskQueue = `bench-unpolled-${randomUUID()}`;
  const api = await startProcess(
    'apps/api/src/main.js',
    { ...system.env, API_PORT: String(port), TEMPORAL_TASK_QUEUE: taskQueue },
    'API listening',
  );
  const started: string[] = [];
  try {
    const workflowUuid = await system.createWorkflow([
      { type: 'custom_llm', name: 'step', model: 'bench-model', system_prompt: 'Summarise <<trigger_output>>' },
    ]);
    const startRun = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/workflows/${workflowUuid}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ trigger_output: { bench: true } }),
      });
      const body = (await response.json()) as { uuid?: string };
      if (!response.ok || !body.uuid) throw new Error(`POST /runs answered ${response.status}`);
      started.push(body.uuid);
    };
    const sample = await measureThroughput(startRun, concurrency, periodMs);
    const definition = (await system.get(`/workflows/${workflowUuid}`)) as unknown as WorkflowDefinition;
    const bare = await measureThroughput(() => bareStart(system, taskQueue, definition, started), concurrency, periodMs);
    return {
      concurrency,
      task_queue: taskQueue,
      requests_per_second: sample.runs_per_second,
      bare_starts_per_second: bare.runs_per_second,
      vs_bare: Math.round((sample.runs_per_second / bare.runs_per_second) * 100) / 100,
      errors: sample.errors,
      failures: sample.failures,
      latency_ms: sample.latency_ms,
      terminated: started.length,
    };
  } finally {
    await terminateAll(system, started);
    const exited = new Promise((resolve) => api.once('exit', resolve));
    api.kill('SIGTERM');
    await exited;
  }
}

/** What the API's RunLauncher sends for a new run, without the request, its rows or its answer. */
async function bareStart(system: System, taskQueue: string, definition: WorkflowDefinition, started: string[]): Promise<void> {
  const runUuid = randomUUID();
  const userId = 'bench';
  await system.temporal.workflow.start(RUN_WORKFLOW_TYPE, {
    workflowId: runWorkflowId(runUuid),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    taskQueue,
    args: [
      {
        run_uuid: runUuid,
        user_id: userId,
        definition,
        instances: definition.steps.map((step) => ({ step_uuid: step.uuid, instance_uuid: randomUUID() })),
        heartbeat_timeout_seconds: 30,
      },
    ],
    staticSummary: `${definition.name} — run ${runUuid}`,
    memo: { run_uuid: runUuid, workflow_uuid: definition.uuid, workflow_name: definition.name, user_id: userId },
    typedSearchAttributes: runSearchAttributes({
      run_uuid: runUuid,
      workflow_uuid: definition.uuid,
      workflow_name: definition.name,
      user_id: userId,
    }),
  });
  started.push(runUuid);
}

/** Terminates the executions, twenty at a time, so none is left open on the shared server. */
async function terminateAll(system: System, runUuids: string[]): Promise<void> {
  for (let i = 0; i < runUuids.length; i += 20) {
    await Promise.all(
      runUuids.slice(i, i + 20).map((uuid) => system.temporal.workflow.getHandle(runWorkflowId(uuid)).terminate('bench: POST /runs alone')),
    );
  }
}
