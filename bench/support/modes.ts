/** Sizes per mode: smoke checks that everything runs (npm test), quick < 3 min, full < 15 min. */
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
}

export const MODES: Record<'smoke' | 'quick' | 'full', BenchMode> = {
  smoke: { sizes: [1, 5], runs: 2, warmup: 1, concurrency: [1, 10], periodMs: 1500, reps: 1, waitingRuns: 20, waitingDelayMs: 500, agentRuns: 1 },
  quick: { sizes: [1, 5, 20], runs: 10, warmup: 2, concurrency: [1, 10, 50, 200], periodMs: 4000, reps: 2, waitingRuns: 200, waitingDelayMs: 2000, agentRuns: 3 },
  full: { sizes: [1, 5, 20], runs: 30, warmup: 3, concurrency: [1, 10, 50, 200], periodMs: 10_000, reps: 3, waitingRuns: 2000, waitingDelayMs: 2000, agentRuns: 5 },
};
