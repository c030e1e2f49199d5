/** A provider account's limits as the shared limiter applies them. */
export interface RateLimits {
  requestsPerMinute: number;
  tokensPerMinute: number | null;
  /** Requests one user may hold booked ahead of the others: past it their next call waits its turn. */
  userLookahead: number;
}

/** A booked slot, `waitMs` from now; or no slot, the user holding their share already. */
export type SlotBooking = { booked: true; waitMs: number } | { booked: false; retryInMs: number };

/**
 * The provider limiter every worker shares (`provider_rates`, `provider_rate_users`): per provider account, the
 * time of the next free request slot (requests spaced evenly over the minute), the tokens booked ahead, and
 * until when the provider asked everyone to wait (a 429's retry-after); per user, their latest booked slot.
 * Times are the database's milliseconds, so workers' clocks never disagree.
 */
export abstract class ProviderRateRepository {
  abstract book(rateKey: string, userId: string, tokens: number, limits: RateLimits): Promise<SlotBooking>;
  /** A provider's 429: no caller of that account is sent before `waitMs` from now. */
  abstract block(rateKey: string, waitMs: number): Promise<void>;
}
