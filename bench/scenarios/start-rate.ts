// Floor: `POST /workflows/{uuid}/runs` alone. A second API process of the same system starts runs on a task
// queue nobody polls, so what is measured is the request, its rows and the workflow start, nothing after.
// Every execution it started is terminated at the end (the API's reconciler then records their end).
import { randomUUID } from 'node:crypto';
import { runWorkflowId } from '@app/contracts';
import { startProcess, type System } from '../support/system';
import { measureThroughput, type ThroughputSample } from './throughput';

export const START_CONCURRENCY = 50;

export interface StartRateResult {
  concurrency: number;
  /** The task queue nobody polls that the runs were started on. */
  task_queue: string;
  requests_per_second: number;
  errors: number;
  failures: Record<string, number>;
  latency_ms: ThroughputSample['latency_ms'];
  terminated: number;
}

export async function measureStartRate(system: System, periodMs: number, concurrency = START_CONCURRENCY): Promise<StartRateResult> {
  const port = Number(system.env.API_PORT) + 1;
  const taskQueue = `bench-unpolled-${randomUUID()}`;
  const api = await startProcess('apps/api/src/main.js', { ...system.env, API_PORT: String(port), TEMPORAL_TASK_QUEUE: taskQueue }, 'API listening');
  const started: string[] = [];
  try {
    const workflowUuid = await system.createWorkflow([{ type: 'custom_llm', name: 'step', model: 'bench-model', system_prompt: 'Summarise <<trigger_output>>' }]);
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
    return { concurrency, task_queue: taskQueue, requests_per_second: sample.runs_per_second, errors: sample.errors, failures: sample.failures, latency_ms: sample.latency_ms, terminated: started.length };
  } finally {
    await terminateAll(system, started);
    const exited = new Promise((resolve) => api.once('exit', resolve));
    api.kill('SIGTERM');
    await exited;
  }
}

/** Terminates the executions, twenty at a time, so none is left open on the shared server. */
async function terminateAll(system: System, runUuids: string[]): Promise<void> {
  for (let i = 0; i < runUuids.length; i += 20) {
    await Promise.all(runUuids.slice(i, i + 20).map((uuid) => system.temporal.workflow.getHandle(runWorkflowId(uuid)).terminate('bench: POST /runs alone')));
  }
}
