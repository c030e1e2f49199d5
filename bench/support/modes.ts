/**
 * Sizes per mode: smoke checks that everything runs (npm test), quick < 3 min, full < 15 min. Runs still in
 * flight when a throughput period ends are waited for, so high concurrency costs its drain time too.
 */
export interface BenchMode {
  sizes: number[];
  runs: number;
  warmup: number;
  concurrency: number[];
  periodMs: number;
  reps: number;
  waitingRuns: number;
  waitingDelayMs: number;
  agentRuns: number;
  /** Scenario 7: how long the model takes to answer, and runs of each workload (after slowWarmup). */
  slowModelMs: number;
  slowRuns: number;
  slowWarmup: number;
  /** Live runs (#28): runs watched one at a time, clients watching one run; compare: a second system with MODEL_STREAMING off. */
  live: { firstDeltaRuns: number; watchers: number; compare: boolean };
}

export const MODES: Record<'smoke' | 'quick' | 'full', BenchMode> = {
  smoke: {
    sizes: [1, 5],
    runs: 2,
    warmup: 1,
    concurrency: [1, 10],
    periodMs: 1500,
    reps: 1,
    waitingRuns: 20,
    waitingDelayMs: 500,
    agentRuns: 1,
    slowModelMs: 50,
    slowRuns: 1,
    slowWarmup: 0,
    live: { firstDeltaRuns: 3, watchers: 5, compare: false },
  },
  quick: {
    sizes: [1, 5, 20],
    runs: 5,
    warmup: 2,
    concurrency: [1, 10, 50, 200],
    periodMs: 2500,
    reps: 1,
    waitingRuns: 100,
    waitingDelayMs: 2000,
    agentRuns: 2,
    slowModelMs: 500,
    slowRuns: 3,
    slowWarmup: 1,
    live: { firstDeltaRuns: 20, watchers: 100, compare: true },
  },
  full: {
    sizes: [1, 5, 20],
    runs: 30,
    warmup: 3,
    concurrency: [1, 10, 50, 200],
    periodMs: 6000,
    reps: 3,
    waitingRuns: 2000,
    waitingDelayMs: 2000,
    agentRuns: 5,
    slowModelMs: 500,
    slowRuns: 7,
    slowWarmup: 1,
    live: { firstDeltaRuns: 50, watchers: 100, compare: true },
  },
};
