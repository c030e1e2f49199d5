import { durationProblem } from './durations';

describe(durationProblem.name, () => {
  it.each([0.001, 0.3, 0.1 + 0.2, 1, 2.5, 86_400])('takes %s s', (seconds) => expect(durationProblem(seconds, 86_400)).toBeNull());

  it.each([
    [1e-7, 'must be at least 0.001 (one millisecond)'],
    [0, 'must be at least 0.001 (one millisecond)'],
    [-1, 'must be at least 0.001 (one millisecond)'],
    [0.0015, 'must be a whole number of milliseconds (at most three decimals)'],
    [1.0000001, 'must be a whole number of milliseconds (at most three decimals)'],
    [86_400.001, 'must be at most 86400'],
    [1e300, 'must be at most 86400'],
    [Number.POSITIVE_INFINITY, 'must be a finite number of seconds'],
    [Number.NaN, 'must be a finite number of seconds'],
  ])('refuses %s s: %s', (seconds, problem) => expect(durationProblem(seconds, 86_400)).toBe(problem));

  it('accepts only what prints without an exponent, so the SDK can read `${seconds} seconds`', () => {
    for (let millis = 1; millis <= 2000; millis++) {
      const seconds = millis / 1000;
      expect(durationProblem(seconds, 86_400)).toBeNull();
      expect(String(seconds)).not.toMatch(/e/i);
    }
  });
});
