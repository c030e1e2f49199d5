import type { DataSource } from 'typeorm';
import { runStatement, runTransaction } from '../runs/run-sql';
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
    const interval = 60_000 / limits.requestsPerMinute;
    return runTransaction(this.dataSource, async (manager) => {
      const [rate] = (await manager.query(
        `SELECT next_request_at AS r, next_token_at AS t, blocked_until AS b, ${NOW_MS} AS now FROM provider_rates WHERE rate_key = ? FOR UPDATE`,
        [rateKey],
      )) as Record<'r' | 't' | 'b' | 'now', string>[];
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
      return { booked: true, waitMs: slot - now };
    });
  }

  async block(rateKey: string, waitMs: number): Promise<void> {
    await this.ensure(rateKey);
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        `UPDATE provider_rates SET blocked_until = GREATEST(blocked_until, ${NOW_MS} + ?), next_request_at = GREATEST(next_request_at, ${NOW_MS} + ?) WHERE rate_key = ?`,
        [Math.ceil(waitMs), Math.ceil(waitMs), rateKey],
      ),
    );
  }

  private async ensure(rateKey: string): Promise<void> {
    if (this.known.has(rateKey)) return;
    await this.dataSource.query('INSERT IGNORE INTO provider_rates (rate_key) VALUES (?)', [rateKey]);
    this.known.add(rateKey);
  }
}
