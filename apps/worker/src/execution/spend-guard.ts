import { Injectable } from '@nestjs/common';
import { limitedPeriods, periodKeys, spendLimitReached, worstCaseCost, type SpendLimits } from '@app/domain';
import { SpendRepository } from '@app/persistence';
import type { ModelRequest } from '@app/providers';
import { SpendPolicy } from '@app/runs';
import { CallCosts } from './call-costs';

/** What a call holds in the ledger between its reservation and its end. */
export interface SpendHold {
  userId: string;
  /** The call's day and month: its cost is added there. */
  spentIn: string[];
  /** The limited periods its worst case is reserved in, and that worst case. */
  reservedIn: string[];
  reserved: number;
}

/** How long a worker trusts a user's limits as read (a user's change to their own takes this long at most). */
const LIMITS_TTL_MS = 10_000;
/** A prompt's tokens reckoned from its JSON: fewer characters a token than any provider's tokenizer averages, so an overestimate. */
const CHARS_PER_TOKEN = 3;

/**
 * Spend limits at the model call: before a call its worst case (the prompt estimated from its JSON, all of
 * it uncached, plus `max_tokens` of answer, at the model's price) is reserved in the user's day and month,
 * under the ledger rows' locks; after it, the reservation gives way to the real cost. Calls in parallel
 * therefore pass a limit by at most one call's worst case. A call with no room is refused
 * (SPEND_LIMIT_REACHED, retried by Temporal once the period resets); unpriced models reserve nothing.
 */
@Injectable()
export class SpendGuard {
  private readonly limits = new Map<string, { limits: SpendLimits; until: number }>();

  constructor(
    private readonly ledger: SpendRepository,
    private readonly policy: SpendPolicy,
    private readonly costs: CallCosts,
  ) {}

  async reserve(userId: string, provider: string, request: ModelRequest): Promise<SpendHold> {
    const now = new Date();
    const { day, month } = periodKeys(now);
    const hold: SpendHold = { userId, spentIn: [day, month], reservedIn: [], reserved: 0 };
    const periods = limitedPeriods(await this.limitsOf(userId), now);
    if (!periods.length) return hold;
    const prompt = Math.ceil(
      JSON.stringify([request.messages, request.tools ?? null, request.response_format ?? null]).length / CHARS_PER_TOKEN,
    );
    const worst = worstCaseCost(this.costs.priceOf(provider, request.model), prompt, request.max_tokens ?? 0) ?? 0;
    if (worst === 0) return hold;
    const outcome = await this.ledger.reserve(userId, periods, worst);
    if (!outcome.reserved)
      throw spendLimitReached(
        periods.find(({ period }) => period === outcome.period)!,
        outcome.held,
        now,
        worst,
      );
    return { ...hold, reservedIn: periods.map(({ period }) => period), reserved: worst };
  }

  /** The call ended: its cost spent (nothing when it failed or its model is unpriced), its reservation given back. */
  settle(hold: SpendHold | null, cost: number | null): Promise<void> {
    if (!hold) return Promise.resolve();
    return this.ledger.settle(hold.userId, hold.spentIn, cost ?? 0, hold.reservedIn, hold.reserved);
  }

  private async limitsOf(userId: string): Promise<SpendLimits> {
    const known = this.limits.get(userId);
    if (known && known.until > Date.now()) return known.limits;
    const limits = await this.policy.limitsOf(userId);
    if (this.limits.size > 10_000) this.limits.clear();
    this.limits.set(userId, { limits, until: Date.now() + LIMITS_TTL_MS });
    return limits;
  }
}
