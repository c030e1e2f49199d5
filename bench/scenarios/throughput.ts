// Scenario 2: runs started as fast as they are accepted, by `concurrency` loops for a fixed period:
// completed runs per second, errors, and run latency.
import { distribution, type Distribution } from '../support/stats';

export interface ThroughputSample {
  runs_per_second: number;
  completed: number;
  errors: number;
  /** How many runs failed with each reason. */
  failures: Record<string, number>;
  latency_ms: Distribution;
}

export async function measureThroughput(runOnce: () => Promise<void>, concurrency: number, periodMs: number): Promise<ThroughputSample> {
  const latencies: number[] = [];
  let errors = 0;
  const failures: Record<string, number> = {};
  const started = Date.now();
  const deadline = started + periodMs;
  const loop = async () => {
    while (Date.now() < deadline) {
      const t0 = Date.now();
      try {
        await runOnce();
        latencies.push(Date.now() - t0);
      } catch (error) {
        errors++;
        const reason = String((error as Error).message ?? error).slice(0, 160);
        failures[reason] = (failures[reason] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (Date.now() - started) / 1000;
  return {
    runs_per_second: latencies.length / elapsed,
    completed: latencies.length,
    errors,
    failures,
    latency_ms: distribution(latencies.length ? latencies : [NaN]),
  };
}
