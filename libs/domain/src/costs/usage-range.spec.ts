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
    [{ from: '2025-01-01', to: '2026-03-01' }, 'from'],
  ])('refuses %j naming the field', (query, field) => {
    expect(errorOf(() => usageRangeOf(query, now))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
  });

  it(`accepts ${USAGE_MAX_DAYS} days and not one more`, () => {
    expect(() => usageRangeOf({ from: '2026-01-01', to: '2026-04-02' }, now)).not.toThrow();
    expect(() => usageRangeOf({ from: '2026-01-01', to: '2026-04-03' }, now)).toThrow('at most');
  });
});
