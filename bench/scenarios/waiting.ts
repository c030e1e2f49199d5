// Scenario 3: many runs whose model call takes long (2 s): wall time to finish them all, peak memory of
// the worker and the API while they wait, and failures.
import { memoryOf, reasonOf } from '../support/system';

export interface WaitingResult {
  runs: number;
  model_delay_ms: number;
  wall_s: number;
  failed: number;
  /** Why runs failed: each distinct reason and how many times. */
  failures: Record<string, number>;
  peak_rss_mb: Record<string, number>;
}

/** Starts `runs` runs, a few milliseconds apart, and waits for them all while sampling memory. */
export async function measureWaiting(
  runOnce: () => Promise<void>,
  runs: number,
  processes: Record<string, number>,
  modelDelayMs: number,
): Promise<WaitingResult> {
  const peak: Record<string, number> = Object.fromEntries(Object.keys(processes).map((name) => [name, 0]));
  const sample = () => {
    for (const [name, pid] of Object.entries(processes)) peak[name] = Math.max(peak[name], memoryOf(pid).rss_mb);
  };
  const sampler = setInterval(sample, 200);
  const started = Date.now();
  let failed = 0;
  const failures: Record<string, number> = {};
  const all: Promise<void>[] = [];
  for (let i = 0; i < runs; i++) {
    all.push(
      runOnce().catch((error: unknown) => {
        failed += 1;
        const reason = reasonOf(error);
        failures[reason] = (failures[reason] ?? 0) + 1;
      }),
    );
    // Ten starts, then a breath: the starts spread over a second or two instead of one burst.
    if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(all);
  clearInterval(sampler);
  sample();
  return { runs, model_delay_ms: modelDelayMs, wall_s: (Date.now() - started) / 1000, failed, failures, peak_rss_mb: peak };
}
