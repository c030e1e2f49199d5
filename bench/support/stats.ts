// Runs timed, percentiles and spreads: the same way for every scenario.

/** The wall time in ms of each of `runs` runs of `runOnce`, after `warmup` untimed ones. */
export async function timedRuns(runOnce: () => Promise<unknown>, runs: number, warmup: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const started = Date.now();
    await runOnce();
    if (i >= warmup) samples.push(Date.now() - started);
  }
  return samples;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values: number[]): number => percentile(values, 50);

export interface Distribution {
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  n: number;
}

export function distribution(values: number[]): Distribution {
  return {
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** A figure measured several times: its median and the spread around it. */
export interface Repeated {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export function repeated(samples: number[]): Repeated {
  return { median: median(samples), min: Math.min(...samples), max: Math.max(...samples), samples };
}

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
