// How close two fires of a cron can come: what SCHEDULE_MIN_INTERVAL_SECONDS is checked against.
//
// A calendar fires at every second its fields match. Within one day the fires are the hours x minutes x
// seconds it matches, in order; across midnight the last fire of a day is followed by the first of the
// next, when the next day fires too. The days only thin the fires out, so the smallest gap is found
// within a day or across one midnight. Wall-clock time: on the night a time zone falls back, an hour's
// fires repeat once more (Temporal fires a 01:30 twice then), which this does not count.
import { type CalendarTiming, type CronTiming, FIRST_YEAR, LAST_YEAR } from './cron-timing';

const DAY_SECONDS = 86_400;

/** The smallest gap in seconds between two fires; Infinity when it fires at most once. */
export function smallestGapSeconds(timing: CronTiming): number {
  if ('every_ms' in timing) return timing.every_ms / 1000;
  const days = firingDays(timing);
  if (!days.any) return Number.POSITIVE_INFINITY;
  const day = gapsWithinDay(timing);
  if (day.first === null) return Number.POSITIVE_INFINITY;
  const overMidnight = day.first + DAY_SECONDS - day.last;
  // No two days in a row fire: a day at least lies between the last fire and the next.
  return Math.min(day.smallest, days.consecutive ? overMidnight : overMidnight + DAY_SECONDS);
}

/**
 * The first and last fire of a day that fires (seconds since midnight), and the smallest gap between its
 * fires. In order, a fire is followed by the next second matched in its minute, else by the first second
 * of the next minute matched in its hour, else by the first of the next hour: so three lists of at most
 * 60 values give the gap, without walking the day's 86,400 seconds.
 */
function gapsWithinDay(timing: CalendarTiming): { first: number | null; last: number; smallest: number } {
  const [hours, minutes, seconds] = [timing.hours, timing.minutes, timing.seconds].map((matches) =>
    matches.flatMap((on, value) => (on ? [value] : [])),
  );
  if (!hours.length || !minutes.length || !seconds.length) return { first: null, last: 0, smallest: Number.POSITIVE_INFINITY };
  const at = (hour: number, minute: number, second: number) => hour * 3600 + minute * 60 + second;
  const [firstS, lastS, firstM, lastM] = [seconds[0], seconds.at(-1)!, minutes[0], minutes.at(-1)!];
  const smallest = Math.min(
    closest(seconds),
    closest(minutes) * 60 + firstS - lastS,
    closest(hours) * 3600 + at(0, firstM, firstS) - at(0, lastM, lastS),
  );
  return { first: at(hours[0], firstM, firstS), last: at(hours.at(-1)!, lastM, lastS), smallest };
}

/** The smallest difference between two neighbours of an ascending list (Infinity for fewer than two). */
function closest(values: number[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < values.length; i++) smallest = Math.min(smallest, values[i] - values[i - 1]);
  return smallest;
}

/** Whether any day of Temporal's calendar fires, and whether two in a row do (37,000 days at most). */
function firingDays(timing: CalendarTiming): { any: boolean; consecutive: boolean } {
  let any = false;
  let previousFired = false;
  // 1 January 2000 was a Saturday.
  let weekday = 6;
  for (let year = FIRST_YEAR; year <= LAST_YEAR; year++) {
    for (let month = 1; month <= 12; month++) {
      const length = daysIn(year, month);
      for (let day = 1; day <= length; day++, weekday = (weekday + 1) % 7) {
        const fires = timing.years[year - FIRST_YEAR] && timing.months[month] && timing.days_of_month[day] && timing.days_of_week[weekday];
        if (fires && previousFired) return { any: true, consecutive: true };
        any ||= fires;
        previousFired = fires;
      }
    }
  }
  return { any, consecutive: false };
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
