import { Injectable } from '@nestjs/common';
import { limitedPeriods, periodKeys, runBudgetReached, spendLimitReached, worstCaseCost, type SpendLimits } from '@app/domain';
import { AppConfig } from '@app/config';
import { SpendRepository, type SpendHoldRef, type SpendPause } from '@app/persistence';
import type { ModelRequest } from '@app/providers';
import { SpendPolicy } from '@app/runs';
import { CallCosts } from './call-costs';

/** What a call holds in the ledgers between its reservation and its end. */
export interface SpendHold {
  userId: string;
  /** The call's day and month: its cost is added there. */
  spentIn: string[];
  /** Its hold in the user's limited periods (null: none limited, or an unpriced model). */
  user: SpendHoldRef | null;
  /** The run whose max_cost the call reserved against (null: a run without one), and its hold there. */
  runUuid: string | null;
  run: SpendHoldRef | null;
}

/** How a call reserves: `retried`, an earlier attempt of it was made; `callKey`, the call (`<step row>:<turn>`), whose earlier attempts' holds it gives back. */
export interface ReserveOptions {
  retried?: boolean;
  callKey?: string | null;
}

/** A hold outlives its call's deadline (MODEL_TIMEOUT_MS) by this much before another reservation may take it back. */
const HOLD_MARGIN_MS = 60_000;
/** How long a worker trusts a user's limits as read (a user's change to their own takes this long at most). */
const LIMITS_TTL_MS = 10_000;
/** A prompt's tokens reckoned from its JSON: fewer characters a token than any provider's tokenizer averages, so an overestimate. */
const CHARS_PER_TOKEN = 3;

/**
 * Spend limits at the model call: before a call its worst case (the prompt estimated from its JSON, all of
 * it uncached, plus `max_tokens` of answer, at the model's price) is reserved in the user's day and month,
 * under the ledger rows' locks, and against its run's max_cost (the run row's own ledger); after it, the
 * reservations give way to the real cost. Calls in parallel therefore pass a limit by at most one call's
 * worst case. A call with no room is refused (SPEND_LIMIT_REACHED: a run's waits in its workflow for the reset
 * or a re-check signal, another caller's is retried by Temporal at the reset; RUN_BUDGET_REACHED, retried
 * shortly, when the run's budget pause raises it); unpriced models reserve nothing.
 */
@Injectable()
export class SpendGuard {
  private readonly limits = new Map<string, { limits: SpendLimits; until: number }>();
  /** Runs seen without max_cost: a run never gains one (an approval only raises a budget it started with). */
  private readonly unlimitedRuns = new Set<string>();

  constructor(
    private readonly ledger: SpendRepository,
    private readonly policy: SpendPolicy,
    private readonly costs: CallCosts,
    private readonly config: AppConfig,
  ) {}

  /**
   * `runUuid`: the run making the call, whose budget's max_cost (if any) it reserves against too (null: no
   * run's). Each hold expires MODEL_TIMEOUT_MS (plus a minute) after it is taken: a worker that dies mid-call
   * leaves it, and the next reservation of its user (or run) gives it back, at once when it is the same call's.
   */
  async reserve(
    userId: string,
    runUuid: string | null,
    provider: string,
    request: ModelRequest,
    options: ReserveOptions = {},
  ): Promise<SpendHold> {
    const { retried = false, callKey = null } = options;
    const now = new Date();
    const { day, month } = periodKeys(now);
    const hold: SpendHold = { userId, spentIn: [day, month], user: null, runUuid: null, run: null };
    // An unpriced model costs nothing to hold: its prompt (an agent's whole transcript) is not measured.
    const price = this.costs.priceOf(provider, request.model);
    if (!price) return hold;
    const prompt = Math.ceil(
      JSON.stringify([request.messages, request.tools ?? null, request.response_format ?? null]).length / CHARS_PER_TOKEN,
    );
    const worst = worstCaseCost(price, prompt, request.max_tokens ?? 0) ?? 0;
    if (worst === 0) return hold;
    const terms = { callKey, ttlMs: this.holdTtlMs() };
    // The run's max_cost first: a run without one reserves nothing there (one locked read of its row).
    const run =
      runUuid && !this.unlimitedRuns.has(runUuid) ? await this.ledger.reserveForRun(runUuid, worst, terms) : ({ limited: false } as const);
    if (runUuid && !run.limited) this.remember(runUuid);
    if (run.limited && !run.reserved) throw runBudgetReached(run.held, run.max_cost, worst);
    if (run.limited) Object.assign(hold, { runUuid, run: { id: run.holdId, reservedIn: [], amount: worst } });
    let periods = limitedPeriods(await this.limitsOf(userId), now);
    if (!periods.length) return await this.goingOn(hold, runUuid, retried);
    let outcome = await this.ledger.reserve(userId, periods, worst, terms);
    if (!outcome.reserved) {
      // Refused under limits as this worker last read them: a user who just raised theirs is not refused on old ones.
      periods = limitedPeriods(await this.limitsOf(userId, true), now);
      if (!periods.length) return await this.goingOn(hold, runUuid, retried);
      outcome = await this.ledger.reserve(userId, periods, worst, terms);
    }
    if (!outcome.reserved) {
      await this.settle(hold, null);
      const refusal = spendLimitReached(
        periods.find(({ period }) => period === outcome.period)!,
        outcome.held,
        now,
        worst,
      );
      // The run shows why it waits, and waits in its workflow for the reset or a re-check (the refusal names the run).
      if (runUuid) {
        const { period, limit, spent, resets_at } = refusal.details as Omit<SpendPause, 'code'>;
        await this.ledger.pauseRunForSpend(runUuid, { code: 'SPEND_LIMIT_REACHED', period, limit, spent, resets_at });
        refusal.details.run_uuid = runUuid;
      }
      throw refusal;
    }
    const user = { id: outcome.holdId, reservedIn: periods.map(({ period }) => period), amount: worst };
    return await this.goingOn({ ...hold, user }, runUuid, retried);
  }

  /** The call waited for its provider's slot: its holds live a whole call's deadline from now. */
  async sending(hold: SpendHold | null): Promise<void> {
    const ids = [hold?.user?.id, hold?.run?.id].filter((id): id is number => id !== undefined);
    if (ids.length) await this.ledger.extendHolds(ids, this.holdTtlMs());
  }

  /** The call ended: its cost spent (nothing when it failed or its model is unpriced), its holds given back. */
  async settle(hold: SpendHold | null, cost: number | null): Promise<void> {
    if (!hold) return;
    if (hold.runUuid) await this.ledger.settleForRun(hold.runUuid, cost ?? 0, hold.run);
    await this.ledger.settle(hold.userId, hold.spentIn, cost ?? 0, hold.user);
  }

  private holdTtlMs(): number {
    return this.config.models.timeoutMs + HOLD_MARGIN_MS;
  }

  /** A retried call that has room: its run, if an earlier attempt paused it on the spend limit, goes on. */
  private async goingOn(hold: SpendHold, runUuid: string | null, retried: boolean): Promise<SpendHold> {
    if (retried && runUuid) await this.ledger.resumeRunAfterSpend(runUuid);
    return hold;
  }

  private remember(unlimitedRun: string): void {
    if (this.unlimitedRuns.size > 10_000) this.unlimitedRuns.clear();
    this.unlimitedRuns.add(unlimitedRun);
  }

  /** `fresh`: read now, whatever this worker kept. */
  private async limitsOf(userId: string, fresh = false): Promise<SpendLimits> {
    const known = this.limits.get(userId);
    if (known && known.until > Date.now() && !fresh) return known.limits;
    const limits = await this.policy.limitsOf(userId);
    if (this.limits.size > 10_000) this.limits.clear();
    this.limits.set(userId, { limits, until: Date.now() + LIMITS_TTL_MS });
    return limits;
  }
}
