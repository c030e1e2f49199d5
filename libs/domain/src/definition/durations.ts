// Durations users give in seconds and the engine hands to Temporal. The SDK reads `${seconds} seconds`
// with the `ms` package, which has no exponent (1e-7 prints as "1e-7", an "Invalid duration string" at
// every run), and a retry interval of 0 ms is refused outright: so a duration is a whole number of
// milliseconds, at least one, checked at save.

export const MIN_DURATION_SECONDS = 0.001;

/** Why `seconds` is not a duration Temporal takes (at most `maxSeconds`), or null. */
export function durationProblem(seconds: number, maxSeconds: number): string | null {
  if (!Number.isFinite(seconds)) return 'must be a finite number of seconds';
  if (seconds < MIN_DURATION_SECONDS) return `must be at least ${MIN_DURATION_SECONDS} (one millisecond)`;
  if (seconds > maxSeconds) return `must be at most ${maxSeconds}`;
  const millis = seconds * 1000;
  // 0.3 is 300.00000000000006 ms in binary: a whole millisecond within rounding.
  if (Math.abs(millis - Math.round(millis)) > 1e-6) return 'must be a whole number of milliseconds (at most three decimals)';
  return null;
}
