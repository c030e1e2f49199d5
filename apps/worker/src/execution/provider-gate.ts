import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { ModelProvider } from '@app/contracts';
import { ProviderRateRepository } from '@app/persistence';
import type { ModelRequest } from '@app/providers';

/** A prompt's tokens reckoned from its JSON (an overestimate, as for spend limits). */
const CHARS_PER_TOKEN = 3;
/** Each user may hold this many seconds of a provider's rate booked ahead of the others. */
const USER_LOOKAHEAD_SECONDS = 5;

/**
 * The provider limits every worker keeps together (PROVIDER_LIMITS): before a call to a limited provider
 * account it books the next free slot in MySQL (requests spaced evenly over the minute, the call's tokens
 * against the tokens per minute) and waits for it; a provider's 429 with retry-after pushes every caller
 * of that account past it (slots booked before it move with the schedule: see `shiftedSince`); a user holding
 * their share of slots ahead waits while others book. A provider without a limit is not asked about: no query, no wait.
 */
@Injectable()
export class ProviderGate {
  constructor(
    private readonly config: AppConfig,
    private readonly rates: ProviderRateRepository,
  ) {}

  /** Waits for the call's slot at `provider` (at once when the provider has no limit); whether it waited. */
  async acquire(provider: ModelProvider, userId: string, request: ModelRequest, signal?: AbortSignal): Promise<boolean> {
    const limit = this.config.providerLimits.get(provider);
    if (!limit) return false;
    const tokens =
      Math.ceil(JSON.stringify([request.messages, request.tools ?? null, request.response_format ?? null]).length / CHARS_PER_TOKEN) +
      (request.max_tokens ?? 0);
    const limits = { ...limit, userLookahead: Math.max(1, Math.ceil((limit.requestsPerMinute * USER_LOOKAHEAD_SECONDS) / 60)) };
    const rateKey = this.rateKey(provider);
    let waited = false;
    for (;;) {
      const booking = await this.rates.book(rateKey, userId, tokens, limits);
      const waitMs = booking.booked ? booking.waitMs : booking.retryInMs;
      if (waitMs > 0) await sleep(waitMs, undefined, { signal });
      waited ||= waitMs > 0;
      if (!booking.booked) continue;
      // A 429 met by another call while this one waited moved the schedule: its slot moves with it.
      for (let shifted = booking.shiftedMs, later = waitMs > 0 ? await this.rates.shiftedSince(rateKey, shifted) : 0; later > 0;) {
        await sleep(later, undefined, { signal });
        shifted += later;
        later = await this.rates.shiftedSince(rateKey, shifted);
      }
      return waited;
    }
  }

  /** Whether `provider`'s account has limits the gate keeps (PROVIDER_LIMITS). */
  keeps(provider: ModelProvider): boolean {
    return this.config.providerLimits.has(provider);
  }

  /** The provider answered 429: every caller of the account waits `retryAfterMs` (a second when it did not say). */
  async rateLimited(provider: ModelProvider, retryAfterMs: number | undefined): Promise<void> {
    const limit = this.config.providerLimits.get(provider);
    if (!limit) return;
    await this.rates.block(this.rateKey(provider), retryAfterMs ?? 1000, limit);
  }

  /** The account: the provider and its key (hashed), so that two keys are two accounts. */
  private rateKey(provider: ModelProvider): string {
    const settings = this.config.providers[provider];
    const key = settings && 'apiKey' in settings ? (settings.apiKey ?? '') : '';
    return `${provider}:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
  }
}
