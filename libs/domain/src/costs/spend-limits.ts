// A user's spend limits in dollars, per UTC day and per UTC month: the operator's, lowered by the user's own.
// A period is a row of the spend ledger (`2026-11-26`, `2026-11`): what its calls cost, and what calls in
// flight reserved (their worst case), so parallel calls cannot pass a limit by more than one call's worst case.
import { DomainError, ErrorCode } from '../errors';

export interface SpendLimits {
  daily: number | null;
  monthly: number | null;
}

export interface SpendPeriod {
  kind: 'day' | 'month';
  /** The ledger's key: `YYYY-MM-DD` or `YYYY-MM`. */
  period: string;
  limit: number;
  /** When the next period starts (UTC midnight, the first of the next month). */
  resets_at: Date;
}

/** The lower of each limit the operator and the user set (null: neither did). */
export function effectiveLimits(operator: SpendLimits, own: SpendLimits): SpendLimits {
  const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  return { daily: lower(operator.daily, own.daily), monthly: lower(operator.monthly, own.monthly) };
}

/** The ledger keys of `now`'s day and month, whatever the limits. */
export function periodKeys(now: Date): { day: string; month: string } {
  const day = now.toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

/** The periods `now` falls in that have a limit. */
export function limitedPeriods(limits: SpendLimits, now: Date): SpendPeriod[] {
  const { day, month } = periodKeys(now);
  const periods: SpendPeriod[] = [];
  if (limits.daily !== null)
    periods.push({
      kind: 'day',
      period: day,
      limit: limits.daily,
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)),
    });
  if (limits.monthly !== null)
    periods.push({
      kind: 'month',
      period: month,
      limit: limits.monthly,
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    });
  return periods;
}

/** SPEND_LIMIT_REACHED: the user's spend in `period` (what was spent and reserved) leaves no room for `more` dollars. */
export function spendLimitReached(period: SpendPeriod, spent: number, now: Date, more = 0): DomainError {
  const what = more > 0 ? `a call that may cost up to $${more}` : 'a new run';
  return new DomainError(
    ErrorCode.SpendLimitReached,
    `${ErrorCode.SpendLimitReached}: $${round(spent)} of the ${period.kind === 'day' ? 'daily' : 'monthly'} limit of $${period.limit} is spent or reserved, no room for ${what}; it resets at ${period.resets_at.toISOString()}`,
    {
      period: period.kind,
      limit: period.limit,
      spent: round(spent),
      resets_at: period.resets_at.toISOString(),
      retry_after_seconds: Math.max(1, Math.ceil((period.resets_at.getTime() - now.getTime()) / 1000)),
    },
  );
}

const round = (dollars: number) => Math.round(dollars * 1e6) / 1e6;

/** RUN_BUDGET_REACHED: the run's calls spent or reserved `held` of its max_cost: no room for another call until they settle or it is raised. */
export function runBudgetReached(held: number, maxCost: number, more: number): DomainError {
  return new DomainError(
    ErrorCode.RunBudgetReached,
    `${ErrorCode.RunBudgetReached}: $${round(held)} of the run's max_cost of $${maxCost} is spent or reserved, no room for a call that may cost up to $${round(more)}`,
    { max_cost: maxCost, held: round(held) },
  );
}
