import type { FinalStatus } from './run';
import { outcomeOf } from './run';

describe('outcomeOf', () => {
  it.each<[FinalStatus, string]>([
    ['completed', 'successful'],
    ['stopped', 'successful'],
    ['partial_success', 'failed'],
    ['failed', 'failed'],
    ['cancelled', 'cancelled'],
  ])('counts a run ended %s as %s', (status, outcome) => {
    expect(outcomeOf(status)).toBe(outcome);
  });
});
