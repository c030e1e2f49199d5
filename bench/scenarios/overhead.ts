// Scenario 1: runs of 1, 5 and 20 LLM steps, one at a time. Per-step overhead is run time minus model
// time (from the audit), divided by the steps; plus the time from POST /runs to the first model request.
import type { ModelFake } from '../../test/support/model-fake';
import { distribution, timedRuns, type Distribution } from '../support/stats';
import type { Runner } from '../support/runner';
import type { System } from '../support/system';

export interface OverheadResult {
  steps: number;
  run_ms: Distribution;
  per_step_overhead_ms: Distribution;
  first_model_request_ms: Distribution;
}

export async function measureOverhead(
  system: System,
  model: ModelFake,
  sizes: number[],
  runs: number,
  warmup: number,
): Promise<OverheadResult[]> {
  const results: OverheadResult[] = [];
  for (const steps of sizes) {
    const workflowUuid = await system.createWorkflow(
      Array.from({ length: steps }, (_, i) => ({
        type: 'custom_llm',
        name: `s${i}`,
        model: 'bench-model',
        system_prompt: 'Summarise <<trigger_output>>',
      })),
    );
    const runMs: number[] = [];
    const overhead: number[] = [];
    const firstRequest: number[] = [];
    for (let i = 0; i < warmup + runs; i++) {
      const before = model.requests.length;
      const started = Date.now();
      const runUuid = await system.startRun(workflowUuid);
      await system.waitForRun(runUuid);
      const total = Date.now() - started;
      if (i < warmup) continue;
      const run = (await system.get(`/runs/${runUuid}`)) as { steps: { model_calls: { duration_ms: number }[] }[] };
      const modelMs = run.steps.flatMap((step) => step.model_calls).reduce((sum, call) => sum + call.duration_ms, 0);
      runMs.push(total);
      overhead.push((total - modelMs) / steps);
      firstRequest.push(model.requests[before].received_at - started);
    }
    results.push({
      steps,
      run_ms: distribution(runMs),
      per_step_overhead_ms: distribution(overhead),
      first_model_request_ms: distribution(firstRequest),
    });
  }
  return results;
}

/** The same sequential runs on a baseline: run time only. */
export async function measureSequential(
  runner: Runner,
  sizes: number[],
  runs: number,
  warmup: number,
): Promise<{ steps: number; run_ms: Distribution }[]> {
  const results = [];
  for (const steps of sizes) {
    results.push({ steps, run_ms: distribution(await timedRuns(await runner.prepareChain(steps), runs, warmup)) });
  }
  return results;
}
