// Two ways of doing one thing, timed side by side: their runs alternated one by one, each pair in the other order
// from the one before, so neither always runs second. On a machine whose speed drifts between minutes (±15% here
// between whole probe runs), the median of the paired differences is the difference's own figure; two medians
// measured one after the other are not.
import { median, percentile, round } from './stats';

export interface Alternated {
  /** Each side's run times, ms. */
  times: [number[], number[]];
  /** Second side's time minus the first's, pair by pair. */
  differences: number[];
}

export async function alternate(sides: [() => Promise<unknown>, () => Promise<unknown>], pairs: number, warmup = 5): Promise<Alternated> {
  for (let i = 0; i < warmup; i++) for (const side of sides) await side();
  const times: [number[], number[]] = [[], []];
  const differences: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const took = [0, 0];
    for (const side of i % 2 ? [0, 1] : [1, 0]) {
      const started = performance.now();
      await sides[side]();
      took[side] = performance.now() - started;
      times[side].push(took[side]);
    }
    differences.push(took[1] - took[0]);
  }
  return { times, differences };
}

/** What a report prints of it: each side's p50, and the paired differences' p50, p25 and p75. */
export function pairedFigures({ times, differences }: Alternated) {
  return {
    p50: [round(median(times[0])), round(median(times[1]))] as const,
    difference_p50: round(median(differences)),
    difference_p25: round(percentile(differences, 25)),
    difference_p75: round(percentile(differences, 75)),
  };
}
