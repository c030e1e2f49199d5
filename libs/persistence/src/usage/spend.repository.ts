import type { SpendLimits } from '@app/domain';
import type { SpendPause } from '../runs/run.records';

/** A period's row of the ledger: what its calls cost, and what calls in flight hold. */
export interface PeriodSpend {
  spent: number;
  reserved: number;
}

/**
 * The spend ledger (`user_spend`): per user and UTC period (`YYYY-MM-DD`, `YYYY-MM`), what model calls cost
 * and what calls in flight reserved; and a user's own limits (`user_quotas`).
 */
export abstract class SpendRepository {
  abstract ownLimits(userId: string): Promise<SpendLimits>;
  abstract setOwnLimits(userId: string, limits: SpendLimits): Promise<void>;
  /** Each period's row (zeros for one never written). */
  abstract spendOf(userId: string, periods: string[]): Promise<Map<string, PeriodSpend>>;
  /**
   * Reserves `amount` in every period at once when each stays within its limit with it (spent + reserved +
   * amount ≤ limit), under the rows' locks, so racing calls are counted one after the other, and records the
   * hold (expiring after `terms.ttlMs`). First it gives back the user's holds that expired (their calls' workers
   * died) and those of earlier attempts of `terms.callKey`. Without room nothing is written, and the answer
   * names the first period without room and what it held.
   */
  abstract reserve(
    userId: string,
    periods: { period: string; limit: number }[],
    amount: number,
    terms: HoldTerms,
  ): Promise<{ reserved: true; holdId: number } | { reserved: false; period: string; held: number }>;
  /**
   * A call ended: its cost added to `spentIn` (its day and month), and its hold (if any) given back unless an
   * expiry or a later attempt gave it back already.
   */
  abstract settle(userId: string, spentIn: string[], cost: number, hold: SpendHoldRef | null): Promise<void>;
  /**
   * A run's own ledger (`workflow_runs.cost_spent`, `cost_reserved`) against its budget's max_cost: reserves
   * `amount` while what the run spent and reserved is below max_cost (so parallel calls pass it by at most
   * one call's worst case), under the run row's lock, with a hold as `reserve` keeps one (expired holds and
   * earlier attempts' given back first). A run without max_cost reserves nothing (`limited` false).
   */
  abstract reserveForRun(runUuid: string, amount: number, terms: HoldTerms): Promise<RunReservation>;
  /** A call of a run with max_cost ended: its cost spent, its hold given back as `settle` does. */
  abstract settleForRun(runUuid: string, cost: number, hold: SpendHoldRef | null): Promise<void>;
  /** A call waited (its provider's slot) before it was sent: its holds expire `ttlMs` from now instead. */
  abstract extendHolds(holdIds: number[], ttlMs: number): Promise<void>;
  /** A call of the run found no room under its user's limit: the run in flight shows awaiting_input, and why. */
  abstract pauseRunForSpend(runUuid: string, pause: SpendPause): Promise<void>;
  /** A later attempt found room: a run paused so goes on (running), its pause cleared; any other run is untouched. */
  abstract resumeRunAfterSpend(runUuid: string): Promise<void>;
  /** The user's runs paused on their spend limit (at most `limit`), by the user's runs index. */
  abstract spendPausedRuns(userId: string, limit: number): Promise<SpendPausedRun[]>;
  /** Users with spend or reservations in any of `periods`: the only ones whose runs can be paused on them. */
  abstract usersSpendingIn(periods: string[]): Promise<string[]>;
}

export interface SpendPausedRun {
  uuid: string;
  temporal_workflow_id: string;
}

export type RunReservation =
  | { limited: false }
  | { limited: true; reserved: true; holdId: number }
  | { limited: true; reserved: false; held: number; max_cost: number };

/** What a hold is recorded with: the call it is for (`<step row>:<turn>`; null: no call of a run's), and how long it may live. */
export interface HoldTerms {
  callKey: string | null;
  ttlMs: number;
}

/** A hold as its call settles it: its row, the periods it reserved in (a user's) and its amount. */
export interface SpendHoldRef {
  id: number;
  reservedIn: string[];
  amount: number;
}
