// A token bucket per key (an API key, or a client address: address-limiter.ts), refilled continuously. In
// this process's memory: with several API replicas each allows the rate (ARCHITECTURE.md says why that is
// enough for now).
import { DomainError, ErrorCode } from '@app/domain';

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    /** Whose requests, as the refusal names them. */
    private readonly subject = 'with this API key',
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request of `key`'s allowance, or throws RATE_LIMITED saying when to come back. */
  take(key: string): void {
    const now = this.now();
    const refill = this.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * refill);
    bucket.at = now;
    if (bucket.tokens < 1) {
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / refill / 1000));
      throw new DomainError(
        ErrorCode.RateLimited,
        `Too many requests ${this.subject}: ${this.perMinute} a minute (bursts of ${this.burst}); retry in ${retryAfterSeconds} s`,
        { retry_after_seconds: retryAfterSeconds },
      );
    }
    bucket.tokens -= 1;
    if (!this.buckets.has(key) && this.buckets.size >= MAX_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, bucket);
  }
}
