import { ErrorCode } from '../errors';
import { effectiveLimits, limitedPeriods, periodKeys, spendLimitReached } from './spend-limits';

describe('spend limits', () => {
  const now = new Date('2026-12-31T22:00:00Z');

  it("takes the lower of the operator's and the user's own limit, each on its own", () => {
    expect(effectiveLimits({ daily: 10, monthly: null }, { daily: 20, monthly: 50 })).toEqual({ daily: 10, monthly: 50 });
    expect(effectiveLimits({ daily: 10, monthly: 100 }, { daily: 2, monthly: null })).toEqual({ daily: 2, monthly: 100 });
    expect(effectiveLimits({ daily: null, monthly: null }, { daily: null, monthly: null })).toEqual({ daily: null, monthly: null });
  });

  it('keys the ledger by UTC day and month, each reset at the next one', () => {
    expect(periodKeys(now)).toEqual({ day: '2026-12-31', month: '2026-12' });
    expect(limitedPeriods({ daily: 5, monthly: 50 }, now)).toEqual([
      { kind: 'day', period: '2026-12-31', limit: 5, resets_at: new Date('2027-01-01T00:00:00Z') },
      { kind: 'month', period: '2026-12', limit: 50, resets_at: new Date('2027-01-01T00:00:00Z') },
    ]);
    expect(limitedPeriods({ daily: null, monthly: 50 }, new Date('2026-02-10T01:00:00Z'))).toEqual([
      { kind: 'month', period: '2026-02', limit: 50, resets_at: new Date('2026-03-01T00:00:00Z') },
    ]);
  });

  it('refuses with its code, the period, the limit, what was spent and when it resets', () => {
    const [day] = limitedPeriods({ daily: 5, monthly: null }, now);
    const refusal = spendLimitReached(day, 5.0000001, now);
    expect(refusal.code).toBe(ErrorCode.SpendLimitReached);
    expect(refusal.details).toEqual({
      period: 'day',
      limit: 5,
      spent: 5,
      resets_at: '2027-01-01T00:00:00.000Z',
      retry_after_seconds: 7200,
    });
  });
});
