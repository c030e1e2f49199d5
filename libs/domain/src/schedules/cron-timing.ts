// What Temporal makes of a cron_expression, read the way its server reads it (parseCronString in
// service/worker/scheduler): `@every <duration>[/<phase>]` is an interval; anything else is a calendar of
// 5 fields (minute hour day-of-month month day-of-week) or 7 (second first, year last). Knowing the
// calendar, we know how close two fires can come, whatever the syntax.
//
// Stricter than Temporal where Temporal would quietly read something other than most cron dialects:
// six fields (Temporal: minute ... year; elsewhere: second ... day of week), `#` (a comment to Temporal,
// the n-th weekday elsewhere), a `TZ=` prefix (the schedule's timezone is a field of its own), and `?`,
// `L`, `W` (which Temporal refuses anyway). Linear in the expression's length: no regex backtracks.

export type CronTiming = { every_ms: number } | CalendarTiming;

/** For each field, which values match (index = value). */
export interface CalendarTiming {
  seconds: boolean[];
  minutes: boolean[];
  hours: boolean[];
  days_of_month: boolean[];
  months: boolean[];
  /** 0 = Sunday (7 is read as 0, as Temporal does). */
  days_of_week: boolean[];
  /** Indexed by year - FIRST_YEAR. */
  years: boolean[];
}

/** Temporal's calendar years. */
export const FIRST_YEAR = 2000;
export const LAST_YEAR = 2100;

/** The longest `@every` (a year, as interval_seconds). */
export const MAX_EVERY_MS = 31_536_000_000;

export class CronProblem extends Error {}

const MACROS = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface FieldSpec {
  name: string;
  low: number;
  high: number;
  /** Names a value may be given by (a prefix of at least `prefix` letters), and the value of the first. */
  names?: { list: string[]; prefix: number; first: number };
}

const SECOND: FieldSpec = { name: 'second', low: 0, high: 59 };
const MINUTE: FieldSpec = { name: 'minute', low: 0, high: 59 };
const HOUR: FieldSpec = { name: 'hour', low: 0, high: 23 };
const DAY_OF_MONTH: FieldSpec = { name: 'day of month', low: 1, high: 31 };
const MONTH: FieldSpec = { name: 'month', low: 1, high: 12, names: { list: MONTH_NAMES, prefix: 3, first: 1 } };
const DAY_OF_WEEK: FieldSpec = { name: 'day of week', low: 0, high: 7, names: { list: DAY_NAMES, prefix: 2, first: 0 } };
const YEAR: FieldSpec = { name: 'year', low: FIRST_YEAR, high: LAST_YEAR };

/** The timing a cron_expression gives, or a CronProblem saying why Temporal would refuse or misread it. */
export function readCron(expression: string): CronTiming {
  const text = expression.trim();
  if (text.includes('#'))
    throw new CronProblem(
      'must not hold "#": Temporal reads the rest as a comment (use the note field; the n-th weekday is not supported)',
    );
  if (/^(CRON_)?TZ=/.test(text)) throw new CronProblem('must not name a time zone: use the timezone field');
  if (text.startsWith('@every')) return { every_ms: readEvery(text) };
  const fields = (MACROS.get(text) ?? text).split(/\s+/);
  if (fields.length === 6) {
    throw new CronProblem(
      'has six fields, which Temporal reads as minute, hour, day of month, month, day of week, year (not second first): use five fields, or seven (second first, year last)',
    );
  }
  if (fields.length !== 5 && fields.length !== 7)
    throw new CronProblem(
      'is not a cron expression: give five fields (minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI"), seven (second first, year last), a macro such as @daily, or @every 10m',
    );
  const [second, rest] = fields.length === 7 ? [fields[0], fields.slice(1)] : ['0', [...fields, '*']];
  return {
    seconds: readField(second, SECOND),
    minutes: readField(rest[0], MINUTE),
    hours: readField(rest[1], HOUR),
    days_of_month: readField(rest[2], DAY_OF_MONTH),
    months: readField(rest[3], MONTH),
    days_of_week: sundayAsZero(readField(rest[4], DAY_OF_WEEK)),
    years: readField(rest[5], YEAR).slice(FIRST_YEAR),
  };
}

/** `@every 90m` or `@every 1h/15m` (an interval and a phase). */
function readEvery(text: string): number {
  const match = /^@every (\S+)$/.exec(text);
  if (!match) throw new CronProblem('must be "@every <duration>", e.g. "@every 10m" or "@every 1h/15m"');
  const [interval, phase, extra] = match[1].split('/');
  if (extra !== undefined) throw new CronProblem('has more than one "/" after @every');
  const every = readDuration(interval);
  if (every <= 0) throw new CronProblem('must fire after a duration above zero');
  if (every > MAX_EVERY_MS) throw new CronProblem(`must fire at least once every ${MAX_EVERY_MS / 1000} s (a year)`);
  if (phase !== undefined && readDuration(phase) >= every) throw new CronProblem('must have a phase shorter than its interval');
  return every;
}

const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/y;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A Go duration as Temporal reads it (`1h30m`, `90s`, `1.5d`), in milliseconds. */
function readDuration(text: string): number {
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < text.length) {
    const part = DURATION_PART.exec(text);
    if (!part) throw new CronProblem(`has "${text}" after @every, which is not a duration such as 90s, 10m, 1h30m or 1d`);
    total += Number(part[1]) * UNIT_MS[part[2]];
  }
  if (text === '') throw new CronProblem('has no duration after @every');
  return total;
}

/** One field: values, `a-b` ranges, `*`, each with an optional `/step`, separated by commas. */
function readField(text: string, spec: FieldSpec): boolean[] {
  const matches = new Array<boolean>(spec.high + 1).fill(false);
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) throw new CronProblem(`has too many "/" in its ${spec.name} field`);
    const step = stepText === undefined ? 1 : wholeNumber(stepText, spec, 'a step');
    if (step < 1) throw new CronProblem(`has a step of ${stepText} in its ${spec.name} field`);
    let [start, end] = [spec.low, spec.high];
    if (range !== '*') {
      const bounds = range.split('-');
      if (bounds.length > 2) throw new CronProblem(`has too many "-" in its ${spec.name} field`);
      start = valueOf(bounds[0], spec);
      // `5/15` runs from 5 to the end of the field, `5` alone is 5.
      end = bounds.length === 2 ? valueOf(bounds[1], spec) : stepText === undefined ? start : spec.high;
      if (end < start) throw new CronProblem(`has a range ${range} that ends before it starts in its ${spec.name} field`);
    }
    for (let value = start; value <= end; value += step) matches[value] = true;
  }
  return matches;
}

function valueOf(text: string, spec: FieldSpec): number {
  const names = spec.names;
  if (names && text.length >= names.prefix && /^[a-z]+$/i.test(text)) {
    const index = names.list.findIndex((name) => name.startsWith(text.toLowerCase()));
    if (index >= 0) return index + names.first;
  }
  const value = wholeNumber(text, spec, 'a value');
  if (value < spec.low || value > spec.high) throw new CronProblem(`has ${text} in its ${spec.name} field (${spec.low}-${spec.high})`);
  return value;
}

function wholeNumber(text: string, spec: FieldSpec, what: string): number {
  if (!/^\d{1,9}$/.test(text))
    throw new CronProblem(
      `has "${text}" in its ${spec.name} field, where ${what} (a whole number${spec.names ? ' or a name' : ''}) belongs`,
    );
  return Number(text);
}

function sundayAsZero(days: boolean[]): boolean[] {
  if (days[7]) days[0] = true;
  return days.slice(0, 7);
}
