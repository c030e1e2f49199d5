import type { DataSource } from 'typeorm';
import { runTransaction } from '../runs/run-sql';
import { ProviderRateRepository, type RateLimits, type SlotBooking } from './provider-rate.repository';

const NOW_MS = 'CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)';
/** Tokens may be booked up to a minute ahead of now, as a per-minute limit allows. */
const TOKEN_WINDOW_MS = 60_000;

export class TypeormProviderRateRepository extends ProviderRateRepository {
  /** Accounts whose row this process has made sure of. */
  private readonly known = new Set<string>();

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async book(rateKey: string, userId: string, tokens: number, limits: RateLimits): Promise<SlotBooking> {
    await this.ensure(rateKey);
    return runTransaction(this.dataSource, async (manager) => {
      const [rate] = (await manager.query(
        `SELECT next_request_at AS r, next_token_at AS t, blocked_until AS b, shifted_ms AS s, slack_ms AS k, ${NOW_MS} AS now FROM provider_rates WHERE rate_key = ? FOR UPDATE`,
        [rateKey],
      )) as Record<'r' | 't' | 'b' | 's' | 'k' | 'now', string>[];
      // The even spacing, widened by what the account's 429s taught (its requests reach the provider with jitter).
      const interval = 60_000 / limits.requestsPerMinute + Number(rate.k);
      const [user] = (await manager.query('SELECT latest_slot AS s FROM provider_rate_users WHERE rate_key = ? AND user_id = ?', [
        rateKey,
        userId,
      ])) as { s: string }[];
      const now = Number(rate.now);
      // Fairness: a user with their share booked ahead waits for it to come closer, so another user's call gets the next slot.
      // (Their latest slot at most `userLookahead - 1` intervals ahead: with this one, `userLookahead` slots after the current one.)
      const beyond = Number(user?.s ?? 0) - now - (limits.userLookahead - 1) * interval;
      if (beyond >= 0) return { booked: false, retryInMs: Math.ceil(beyond) + 1 };
      const tokenReady = limits.tokensPerMinute ? Number(rate.t) - TOKEN_WINDOW_MS : 0;
      const slot = Math.ceil(Math.max(now, Number(rate.r), Number(rate.b), tokenReady));
      const nextTokens = limits.tokensPerMinute ? Math.max(Number(rate.t), now) + (tokens * 60_000) / limits.tokensPerMinute : 0;
      await manager.query('UPDATE provider_rates SET next_request_at = ?, next_token_at = ? WHERE rate_key = ?', [
        Math.ceil(slot + interval),
        Math.ceil(nextTokens),
        rateKey,
      ]);
      await manager.query(
        'INSERT INTO provider_rate_users (rate_key, user_id, latest_slot) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE latest_slot = VALUES(latest_slot)',
        [rateKey, userId, slot],
      );
      return { booked: true, waitMs: slot - now, shiftedMs: Number(rate.s) };
    });
  }

  async block(rateKey: string, waitMs: number, limits: Pick<RateLimits, 'requestsPerMinute'>): Promise<void> {
    await this.ensure(rateKey);
    await runTransaction(this.dataSource, async (manager) => {
      const [rate] = (await manager.query(
        `SELECT blocked_until AS b, slack_ms AS k, ${NOW_MS} AS now FROM provider_rates WHERE rate_key = ? FOR UPDATE`,
        [rateKey],
      )) as Record<'b' | 'k' | 'now', string>[];
      const now = Number(rate.now);
      const until = Math.max(now + Math.ceil(waitMs), Number(rate.b));
      // A 429 is a request too many in the provider's window: the slots booked ahead move by an interval at least
      // (each of several 429s at once makes room for its own request), or past the retry-after when it says more.
      const interval = 60_000 / limits.requestsPerMinute;
      const blocked = Number(rate.b) > now;
      const shift = Math.max(until - Math.max(Number(rate.b), now), interval);
      // From then on a minute's requests span a minute and 2 % at least (doubling at each new block, at most
      // 10 %), and at least twice the retry-after: room for the jitter with which requests reach the provider.
      const slack = Math.min(
        interval / 10,
        Math.max(Number(rate.k) * (blocked ? 1 : 2), interval / 50, (2 * waitMs) / limits.requestsPerMinute),
      );
      await manager.query(
        'UPDATE provider_rates SET blocked_until = ?, shifted_ms = shifted_ms + ?, next_request_at = GREATEST(next_request_at, ?) + ?, slack_ms = ? WHERE rate_key = ?',
        [until, shift, now, shift, slack, rateKey],
      );
    });
  }

  async shiftedSince(rateKey: string, shiftedMs: number): Promise<number> {
    const [rate] = (await this.dataSource.query('SELECT shifted_ms AS s FROM provider_rates WHERE rate_key = ?', [rateKey])) as {
      s: string;
    }[];
    return Math.max(0, Number(rate?.s ?? shiftedMs) - shiftedMs);
  }

  private async ensure(rateKey: string): Promise<void> {
    if (this.known.has(rateKey)) return;
    await this.dataSource.query('INSERT IGNORE INTO provider_rates (rate_key) VALUES (?)', [rateKey]);
    this.known.add(rateKey);
  }
}
