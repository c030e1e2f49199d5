import { CronProblem, readCron, type CalendarTiming } from './cron-timing';
import { smallestGapSeconds } from './fire-gap';

const problemOf = (expression: string): string => {
  try {
    readCron(expression);
  } catch (error) {
    if (error instanceof CronProblem) return error.message;
    throw error;
  }
  throw new Error(`${expression} was read`);
};

const matching = (values: boolean[], offset = 0) => values.flatMap((on, i) => (on ? [i + offset] : []));

describe(readCron.name, () => {
  it('reads five fields as Temporal does: second 0, any year', () => {
    const timing = readCron('*/15 9-17 * JAN,jul MON-FRI') as CalendarTiming;
    expect(matching(timing.seconds)).toEqual([0]);
    expect(matching(timing.minutes)).toEqual([0, 15, 30, 45]);
    expect(matching(timing.hours)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(matching(timing.months)).toEqual([1, 7]);
    expect(matching(timing.days_of_week)).toEqual([1, 2, 3, 4, 5]);
    expect(matching(timing.years, 2000)).toHaveLength(101);
  });

  it('reads seven fields second first and year last, a value with a step to the end of its field, and 7 as Sunday', () => {
    const timing = readCron('30 5/20 0 1 * 5-7 2030-2031') as CalendarTiming;
    expect(matching(timing.seconds)).toEqual([30]);
    expect(matching(timing.minutes)).toEqual([5, 25, 45]);
    expect(matching(timing.days_of_week)).toEqual([0, 5, 6]);
    expect(matching(timing.years, 2000)).toEqual([2030, 2031]);
  });

  it('reads macros and @every, phase included', () => {
    expect(matching((readCron('@hourly') as CalendarTiming).minutes)).toEqual([0]);
    expect(readCron('@every 1h30m')).toEqual({ every_ms: 5_400_000 });
    expect(readCron('@every 1.5d/2h')).toEqual({ every_ms: 129_600_000 });
    expect(readCron('@every 1500ms')).toEqual({ every_ms: 1500 });
  });

  it.each([
    [
      '*/5 * * * * *',
      'has six fields, which Temporal reads as minute, hour, day of month, month, day of week, year (not second first): use five fields, or seven (second first, year last)',
    ],
    [
      'every day',
      'is not a cron expression: give five fields (minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI"), seven (second first, year last), a macro such as @daily, or @every 10m',
    ],
    [
      '@sometimes',
      'is not a cron expression: give five fields (minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI"), seven (second first, year last), a macro such as @daily, or @every 10m',
    ],
    ['0 9 * * MON#2', 'must not hold "#": Temporal reads the rest as a comment (use the note field; the n-th weekday is not supported)'],
    ['TZ=Europe/Paris 0 9 * * *', 'must not name a time zone: use the timezone field'],
    ['61 * * * *', 'has 61 in its minute field (0-59)'],
    ['*/0 * * * *', 'has a step of 0 in its minute field'],
    ['0 25 * * *', 'has 25 in its hour field (0-23)'],
    ['0 9 32 * *', 'has 32 in its day of month field (1-31)'],
    ['0 9 * 13 *', 'has 13 in its month field (1-12)'],
    ['0 9 * * 1-8', 'has 8 in its day of week field (0-7)'],
    ['0 9 * * 5-1', 'has a range 5-1 that ends before it starts in its day of week field'],
    ['0 0 12 * * ? 2030', 'has "?" in its day of week field, where a value (a whole number or a name) belongs'],
    ['0 0 1 * * * 1999', 'has 1999 in its year field (2000-2100)'],
    ['1-2-3 * * * *', 'has too many "-" in its minute field'],
    ['*/2/3 * * * *', 'has too many "/" in its minute field'],
    ['0 0 L * *', 'has "L" in its day of month field, where a value (a whole number) belongs'],
    ['1,,2 * * * *', 'has "" in its minute field, where a value (a whole number) belongs'],
    ['@every 0s', 'must fire after a duration above zero'],
    ['@every', 'must be "@every <duration>", e.g. "@every 10m" or "@every 1h/15m"'],
    ['@every 10', 'has "10" after @every, which is not a duration such as 90s, 10m, 1h30m or 1d'],
    ['@every 1h/2h', 'must have a phase shorter than its interval'],
    ['@every 366d', 'must fire at least once every 31536000 s (a year)'],
  ])('refuses %j: %s', (expression, problem) => expect(problemOf(expression)).toBe(problem));
});

describe(smallestGapSeconds.name, () => {
  it.each([
    ['* * * * *', 60],
    ['*/7 * * * *', 240],
    ['0 * * * *', 3600],
    ['0 9 * * *', 86_400],
    ['0 9 * * MON', 2 * 86_400], // a lower bound: days apart count as two
    ['0,30 * * * * * *', 30],
    ['59 59 23 * * * *', 86_400],
    ['0 0 1 1 * * 2030', 2 * 86_400],
    ['0 0 30 2 *', Number.POSITIVE_INFINITY],
    ['@every 1s', 1],
    ['@every 90m/5m', 5400],
  ])('%s: %s s at the closest', (expression, gap) => expect(smallestGapSeconds(readCron(expression))).toBe(gap));
});
