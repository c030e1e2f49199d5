// The days a usage report covers: whole UTC days, `from` and `to` included, at most USAGE_MAX_DAYS of them
// (the operator's setting; each day a group of the report, and the days bound the calls it reads).
import { DomainError, ErrorCode } from '../errors';

/** USAGE_MAX_DAYS's default: a quarter. */
export const USAGE_MAX_DAYS = 92;
/** Without `from`, a report covers the 30 days up to `to`. */
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

/** [from, to) in time; `first` and `last` the days as given back. */
export interface UsageRange {
  from: Date;
  to: Date;
  first: string;
  last: string;
}

function day(value: string | undefined, field: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value)
    throw new DomainError(ErrorCode.ValidationFailed, `${field} must be a day, YYYY-MM-DD (UTC)`, { field });
  return date;
}

export function usageRangeOf(query: { from?: string; to?: string }, now: Date, maxDays = USAGE_MAX_DAYS): UsageRange {
  const last = day(query.to, 'to') ?? new Date(now.toISOString().slice(0, 10) + 'T00:00:00Z');
  const first = day(query.from, 'from') ?? new Date(last.getTime() - (Math.min(DEFAULT_DAYS, maxDays) - 1) * DAY_MS);
  const days = (last.getTime() - first.getTime()) / DAY_MS + 1;
  if (days < 1) throw new DomainError(ErrorCode.ValidationFailed, 'from must not be after to', { field: 'from' });
  if (days > maxDays)
    throw new DomainError(
      ErrorCode.UsageRangeTooLong,
      `${ErrorCode.UsageRangeTooLong}: a report covers at most ${maxDays} days (USAGE_MAX_DAYS); got ${days}`,
      {
        field: 'from',
        max_days: maxDays,
      },
    );
  return {
    from: first,
    to: new Date(last.getTime() + DAY_MS),
    first: first.toISOString().slice(0, 10),
    last: last.toISOString().slice(0, 10),
  };
}
