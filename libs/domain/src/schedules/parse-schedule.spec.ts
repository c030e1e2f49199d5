import { DomainError } from '../errors';
import { assertBackfillSpan, assertFiresAtMostEvery, parseBackfill, parseScheduleInput, parseSchedulePatch } from './parse-schedule';

const now = new Date('2026-11-22T12:00:00Z');

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.details.field;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe(parseScheduleInput.name, () => {
  it('parses a recurring cron schedule with defaults', () => {
    expect(
      parseScheduleInput({ schedule_type: 'recurring', cron_expression: '0 9 * * MON-FRI', timezone: 'Europe/Paris' }, now),
    ).toMatchObject({
      overlap: 'skip',
      pause_on_failure: false,
      trigger_output: null,
      timezone: 'Europe/Paris',
    });
  });

  it.each([
    [{ schedule_type: 'weekly' }, 'schedule_type'],
    [{ schedule_type: 'recurring' }, 'cron_expression'],
    [{ schedule_type: 'recurring', cron_expression: '* * *' }, 'cron_expression'],
    [{ schedule_type: 'recurring', cron_expression: '0 * * * *', interval_seconds: 5 }, 'cron_expression'],
    [{ schedule_type: 'recurring', interval_seconds: 5, timezone: 'Mars/Olympus' }, 'timezone'],
    [{ schedule_type: 'recurring', interval_seconds: 0 }, 'interval_seconds'],
    [{ schedule_type: 'scheduled' }, 'run_at'],
    [{ schedule_type: 'scheduled', run_at: '2026-11-22T11:00:00Z' }, 'run_at'],
    [{ schedule_type: 'scheduled', run_at: 'tomorrow' }, 'run_at'],
    [{ schedule_type: 'recurring', interval_seconds: 5, overlap: 'sometimes' }, 'overlap'],
  ])('refuses %j naming %s', (body, field) => {
    expect(fieldOf(() => parseScheduleInput(body, now))).toBe(field);
  });
});

describe(parseSchedulePatch.name, () => {
  it('takes timing, paused and note', () => {
    expect(parseSchedulePatch({ paused: true })).toEqual({ paused: true });
    expect(fieldOf(() => parseSchedulePatch({}))).toBe('body');
    expect(fieldOf(() => parseSchedulePatch({ cron_expression: 'nope' }))).toBe('cron_expression');
  });
});

describe(parseBackfill.name, () => {
  it('needs a start before its end', () => {
    expect(parseBackfill({ start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' }).end.toISOString()).toBe(
      '2026-11-02T00:00:00.000Z',
    );
    expect(fieldOf(() => parseBackfill({ start: '2026-11-02T00:00:00Z', end: '2026-11-01T00:00:00Z' }))).toBe('end');
  });
});

describe(assertFiresAtMostEvery.name, () => {
  it.each([
    [{ interval_seconds: 30 }, 'interval_seconds'],
    [{ cron_expression: '* * * * *' }, 'cron_expression'],
    [{ cron_expression: '*/1 * * * *' }, 'cron_expression'],
    [{ cron_expression: '0 * * * * *' }, 'cron_expression'],
    [{ cron_expression: '* 9 * * *' }, 'cron_expression'],
    [{ cron_expression: '0,1 * * * *' }, 'cron_expression'],
    [{ cron_expression: '0/1 * * * *' }, 'cron_expression'],
    [{ cron_expression: '58-59 * * * *' }, 'cron_expression'],
    [{ cron_expression: '0-1 0 * * *' }, 'cron_expression'],
    [{ cron_expression: '0 0,59 0,23 * * * *' }, 'cron_expression'],
    [{ cron_expression: '@every 1s' }, 'cron_expression'],
    [{ cron_expression: '@every 119s' }, 'cron_expression'],
    [{ cron_expression: '@every 1m59s/30s' }, 'cron_expression'],
    [{ cron_expression: '*/30 * * * * * *' }, 'cron_expression'],
    [{ cron_expression: '0,59 59 23 * * * *' }, 'cron_expression'],
  ])('refuses %j under a 120 s floor', (timing, field) =>
    expect(() => assertFiresAtMostEvery(120, timing)).toThrow(expect.objectContaining({ details: { field } })),
  );

  it.each([
    { interval_seconds: 120 },
    { cron_expression: '*/5 * * * *' },
    { cron_expression: '0,30 9 * * *' },
    { cron_expression: '@hourly' },
    { cron_expression: '@every 2m' },
    { cron_expression: '@every 1h/15m' },
    { cron_expression: '0 */2 * * * * *' },
    { cron_expression: '0 59 23 * * * *' },
  ])('accepts %j', (timing) => {
    expect(() => assertFiresAtMostEvery(120, timing)).not.toThrow();
  });

  it('takes crossing midnight into account only when two days in a row fire', () => {
    const lateAndEarly = '59 0,23 * * MON';
    expect(() => assertFiresAtMostEvery(7200, { cron_expression: lateAndEarly })).not.toThrow();
    expect(() => assertFiresAtMostEvery(7200, { cron_expression: '59 0,23 * * MON,TUE' })).toThrow(
      expect.objectContaining({ details: { field: 'cron_expression' } }),
    );
  });

  it('refuses a backfill longer than the span', () => {
    expect(() => assertBackfillSpan(3600, { start: new Date(0), end: new Date(3_600_001) })).toThrow(
      expect.objectContaining({ details: { field: 'end' } }),
    );
    expect(() => assertBackfillSpan(3600, { start: new Date(0), end: new Date(3_600_000) })).not.toThrow();
  });
});
