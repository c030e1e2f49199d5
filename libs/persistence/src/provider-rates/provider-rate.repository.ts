/** A provider account's limits as the shared limiter applies them. */
export interface RateLimits {
  requestsPerMinute: number;
  tokensPerMinute: number | null;
  /** Requests one user may hold booked ahead of the others: past it their next call waits its turn. */
  userLookahead: number;
}

/**
 * A booked slot, `waitMs` from now (`shiftedMs`: the account's schedule shift then, see `shiftedSince`); or no
 * slot, the user holding their share already.
 */
export type SlotBooking = { booked: true; waitMs: number; shiftedMs: number } | { booked: false; retryInMs: number };

/**
 * The provider limiter every worker shares (`provider_rates`, `provider_rate_users`): per provider account, the
 * time of the next free request slot (requests spaced evenly over the minute), the tokens booked ahead, and
 * until when the provider asked everyone to wait (a 429's retry-after); per user, their latest booked slot.
 * Times are the database's milliseconds, so workers' clocks never disagree.
 */
export abstract class ProviderRateRepository {
  abstract book(rateKey: string, userId: string, tokens: number, limits: RateLimits): Promise<SlotBooking>;
  /**
   * A provider's 429: no caller of that account is sent before `waitMs` from now, and the whole schedule (the
   * slots booked ahead, the next free one) moves by as much as that pushes the block further out, and by an
   * interval at least (a 429 is one request too many). The account's requests are spaced wider from then on:
   * its slack (milliseconds added to each interval) becomes at least 2 % of the interval and twice `waitMs`
   * spread over a minute's requests, doubling at each new block, at most a tenth of the interval.
   */
  abstract block(rateKey: string, waitMs: number, limits: Pick<RateLimits, 'requestsPerMinute'>): Promise<void>;
  /** How much later than booked a slot now is: what 429s since its booking (`shiftedMs` then) moved the schedule by. */
  abstract shiftedSince(rateKey: string, shiftedMs: number): Promise<number>;
}
