// Scenario 7: a model that answers in 500 ms (issue #32). Where the model's time dominates, orchestration
// must add next to nothing: a 5-step chain's and a 10-tool-call agent's run, stepwise against the plain
// loop (the same model calls and audit rows, no Temporal), one run at a time.
import type { Runner } from '../support/runner';
import { distribution, round, timedRuns, type Distribution } from '../support/stats';

export const SLOW_CHAIN_STEPS = 5;

export interface SlowModelResult {
  workload: 'chain' | 'agent';
  stepwise_run_ms: Distribution;
  plain_run_ms: Distribution;
  /** stepwise's run p50 over the plain loop's: 1.05 means 5% more. */
  vs_plain: number;
}

/** `delay` is the bench's model delay, set to `modelMs` while this runs. */
export async function measureSlowModel(
  ours: Runner,
  plain: Runner,
  delay: { ms: number },
  { modelMs, runs, warmup }: { modelMs: number; runs: number; warmup: number },
): Promise<SlowModelResult[]> {
  const time = async (runOnce: () => Promise<void>) => distribution(await timedRuns(runOnce, runs, warmup));
  delay.ms = modelMs;
  try {
    const results: SlowModelResult[] = [];
    for (const workload of ['chain', 'agent'] as const) {
      const prepare = (runner: Runner) => (workload === 'chain' ? runner.prepareChain(SLOW_CHAIN_STEPS) : runner.prepareAgent(10));
      const [stepwise, plainLoop] = [await time(await prepare(ours)), await time(await prepare(plain))];
      results.push({ workload, stepwise_run_ms: stepwise, plain_run_ms: plainLoop, vs_plain: round(stepwise.p50 / plainLoop.p50, 3) });
    }
    return results;
  } finally {
    delay.ms = 0;
  }
}
