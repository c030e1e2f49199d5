import { errorOf } from '../errors.testing';
import { usageRangeOf, USAGE_MAX_DAYS } from './usage-range';

describe('usageRangeOf', () => {
  const now = new Date('2026-03-15T18:30:00Z');

  it('covers whole UTC days, both ends included', () => {
    expect(usageRangeOf({ from: '2026-03-01', to: '2026-03-02' }, now)).toEqual({
      from: new Date('2026-03-01T00:00:00Z'),
      to: new Date('2026-03-03T00:00:00Z'),
      first: '2026-03-01',
      last: '2026-03-02',
    });
  });

  it('defaults to the 30 days up to today', () => {
    expect(usageRangeOf({}, now)).toMatchObject({ first: '2026-02-14', last: '2026-03-15' });
  });

  it.each([
    [{ from: '2026-02-30' }, 'from'],
    [{ to: '15/03/2026' }, 'to'],
    [{ from: '2026-03-10', to: '2026-03-09' }, 'from'],
  ])('refuses %j naming the field', (query, field) => {
    expect(errorOf(() => usageRangeOf(query, now))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
  });

  it(`accepts ${USAGE_MAX_DAYS} days by default and not one more, refused with its own code naming from`, () => {
    expect(() => usageRangeOf({ from: '2026-01-01', to: '2026-04-02' }, now)).not.toThrow();
    expect(errorOf(() => usageRangeOf({ from: '2026-01-01', to: '2026-04-03' }, now))).toMatchObject({
      code: 'USAGE_RANGE_TOO_LONG',
      details: { field: 'from', max_days: USAGE_MAX_DAYS },
    });
  });

  it("holds the operator's USAGE_MAX_DAYS, and a default range within it", () => {
    expect(() => usageRangeOf({ from: '2026-03-01', to: '2026-03-07' }, now, 7)).not.toThrow();
    expect(errorOf(() => usageRangeOf({ from: '2026-03-01', to: '2026-03-08' }, now, 7))).toMatchObject({
      code: 'USAGE_RANGE_TOO_LONG',
      details: { max_days: 7 },
    });
    expect(usageRangeOf({ to: '2026-03-15' }, now, 7)).toMatchObject({ first: '2026-03-09', last: '2026-03-15' });
  });
});
