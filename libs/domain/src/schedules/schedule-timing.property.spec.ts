// Random schedules against an oracle built from what the generator meant, not from the parser: whatever
// the syntax, an accepted schedule never fires closer than the floor; and the reader stops, with a
// CronProblem or a timing, on any string at all. Each case is small by construction (a cron of at most
// seven short fields, strings of at most 300 characters), so none can take long or much memory.
import fc from 'fast-check';
import { DomainError } from '../errors';
import { CronProblem, readCron } from './cron-timing';
import { smallestGapSeconds } from './fire-gap';
import { assertFiresAtMostEvery } from './parse-schedule';

interface Field {
  text: string;
  values: Set<number>;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** One comma-separated part: `*`, a value, a range, each perhaps with a step; what it matches, computed directly. */
function term(low: number, high: number, names?: string[], namesFrom = 0): fc.Arbitrary<Field> {
  const name = (value: number) =>
    names && value - namesFrom < names.length && value >= namesFrom
      ? fc.constantFrom(String(value), names[value - namesFrom])
      : fc.constant(String(value));
  const value = fc.integer({ min: low, max: high });
  const step = fc.option(fc.integer({ min: 1, max: high - low + 2 }), { nil: undefined });
  const covering = (start: number, end: number, by = 1) =>
    new Set(Array.from({ length: Math.floor((end - start) / by) + 1 }, (_, i) => start + i * by));
  return fc.oneof(
    step.map((by) => ({ text: by ? `*/${by}` : '*', values: covering(low, high, by) })),
    fc
      .tuple(value, step)
      .chain(([start, by]) =>
        name(start).map((text) => ({ text: by ? `${text}/${by}` : text, values: by ? covering(start, high, by) : new Set([start]) })),
      ),
    fc
      .tuple(value, value, step)
      .chain(([a, b, by]) =>
        fc
          .tuple(name(Math.min(a, b)), name(Math.max(a, b)))
          .map(([from, to]) => ({ text: `${from}-${to}${by ? `/${by}` : ''}`, values: covering(Math.min(a, b), Math.max(a, b), by) })),
      ),
  );
}

function field(low: number, high: number, names?: string[], namesFrom = 0): fc.Arbitrary<Field> {
  return fc
    .array(term(low, high, names, namesFrom), { minLength: 1, maxLength: 3 })
    .map((terms) => ({ text: terms.map((t) => t.text).join(','), values: new Set(terms.flatMap((t) => [...t.values])) }));
}

interface Calendar {
  expression: string;
  seconds: Set<number>;
  minutes: Set<number>;
  hours: Set<number>;
  daysOfMonth: Set<number>;
  months: Set<number>;
  daysOfWeek: Set<number>;
  years: Set<number> | null;
}

const calendar: fc.Arbitrary<Calendar> = fc
  .record({
    seven: fc.boolean(),
    second: field(0, 59),
    minute: field(0, 59),
    hour: field(0, 23),
    dom: fc.oneof(fc.constant({ text: '*', values: new Set(Array.from({ length: 31 }, (_, i) => i + 1)) }), field(1, 31)),
    month: fc.oneof(fc.constant({ text: '*', values: new Set(Array.from({ length: 12 }, (_, i) => i + 1)) }), field(1, 12, MONTHS, 1)),
    dow: fc.oneof(fc.constant({ text: '*', values: new Set([0, 1, 2, 3, 4, 5, 6]) }), field(0, 7, DAYS)),
    year: fc.oneof(fc.constant(null), field(2000, 2100)),
  })
  .map(({ seven, second, minute, hour, dom, month, dow, year }) => ({
    expression: seven
      ? [second.text, minute.text, hour.text, dom.text, month.text, dow.text, year?.text ?? '*'].join(' ')
      : [minute.text, hour.text, dom.text, month.text, dow.text].join(' '),
    seconds: seven ? second.values : new Set([0]),
    minutes: minute.values,
    hours: hour.values,
    daysOfMonth: dom.values,
    months: month.values,
    daysOfWeek: new Set([...dow.values].map((day) => day % 7)),
    years: seven ? (year?.values ?? null) : null,
  }));

/** The real smallest gap over Temporal's years, by brute force: every fire of a day, every day from 2000 to 2100. */
function oracleGap(c: Calendar): { gap: number; consecutiveDays: boolean } {
  const sorted = (set: Set<number>) => [...set].sort((a, b) => a - b);
  const times = sorted(c.hours).flatMap((h) => sorted(c.minutes).flatMap((m) => sorted(c.seconds).map((s) => h * 3600 + m * 60 + s)));
  let withinDay = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) withinDay = Math.min(withinDay, times[i] - times[i - 1]);
  let smallest = Number.POSITIVE_INFINITY;
  let previousDay: number | null = null;
  const date = new Date(0);
  for (let day = Date.UTC(2000, 0, 1) / 86_400_000; times.length && day <= Date.UTC(2100, 11, 31) / 86_400_000; day++) {
    date.setTime(day * 86_400_000);
    const fires =
      (!c.years || c.years.has(date.getUTCFullYear())) &&
      c.months.has(date.getUTCMonth() + 1) &&
      c.daysOfMonth.has(date.getUTCDate()) &&
      c.daysOfWeek.has(date.getUTCDay());
    if (!fires) continue;
    smallest = Math.min(smallest, withinDay);
    if (previousDay !== null) smallest = Math.min(smallest, (day - previousDay) * 86_400 + times[0] - times[times.length - 1]);
    // Two days in a row: no later pair of days comes closer.
    if (previousDay === day - 1) return { gap: smallest, consecutiveDays: true };
    previousDay = day;
  }
  return { gap: smallest, consecutiveDays: false };
}

const floor = fc.oneof(fc.constantFrom(1, 59, 60, 61, 120, 3600, 86_400), fc.integer({ min: 1, max: 86_400 }));

const refused = (minSeconds: number, timing: { cron_expression?: string; interval_seconds?: number }): boolean => {
  try {
    assertFiresAtMostEvery(minSeconds, timing);
    return false;
  } catch (error) {
    if (error instanceof DomainError) return true;
    throw error;
  }
};

describe('schedule timing, on random schedules', () => {
  it('never accepts a calendar whose fires come closer than the floor, and never overstates its closest fires', () => {
    fc.assert(
      fc.property(calendar, floor, (c, minSeconds) => {
        const { gap, consecutiveDays } = oracleGap(c);
        const estimate = smallestGapSeconds(readCron(c.expression));
        // Exact when two days in a row fire (most calendars); a lower bound otherwise.
        if (consecutiveDays) expect(estimate).toBe(gap);
        else expect(estimate).toBeLessThanOrEqual(gap);
        if (!refused(minSeconds, { cron_expression: c.expression })) expect(gap).toBeGreaterThanOrEqual(minSeconds);
      }),
      { numRuns: 100 },
    );
  });

  it('never accepts an @every or interval_seconds under the floor', () => {
    const unit = fc.constantFrom(['ms', 1], ['s', 1000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000]);
    const part = fc.tuple(fc.integer({ min: 0, max: 5000 }), unit);
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 200_000 }),
        floor,
        (parts, seconds, minSeconds) => {
          const everyMs = parts.reduce((sum, [n, [, ms]]) => sum + n * (ms as number), 0);
          if (!refused(minSeconds, { cron_expression: `@every ${parts.map(([n, [u]]) => `${n}${u}`).join('')}` }))
            expect(everyMs).toBeGreaterThanOrEqual(minSeconds * 1000);
          if (!refused(minSeconds, { interval_seconds: seconds })) expect(seconds).toBeGreaterThanOrEqual(minSeconds);
        },
      ),
    );
  });

  it('reads any string to a timing or a CronProblem, nothing else', () => {
    const cronish = fc
      .array(fc.constantFrom(...'0123456789*/,-@ .#?LWsmhdevryMONFRIJANTZ='.split('')), { maxLength: 300 })
      .map((chars) => chars.join(''));
    const everyish = fc
      .array(fc.constantFrom(...'0123456789.smhdu/'.split('')), { maxLength: 300 })
      .map((chars) => `@every ${chars.join('')}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), cronish, everyish), (text) => {
        try {
          expect(smallestGapSeconds(readCron(text))).toBeGreaterThan(0);
        } catch (error) {
          if (!(error instanceof CronProblem)) throw error;
        }
      }),
      { numRuns: 1000 },
    );
  });
});
