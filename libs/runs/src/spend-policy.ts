import { effectiveLimits, limitedPeriods, spendLimitReached, type SpendLimits } from '@app/domain';
import type { SpendRepository } from '@app/persistence';

/**
 * A user's spend limits in dollars (the operator's, lowered by the user's own) and whether a new run may
 * start under them: a user whose day or month is spent (or reserved by calls in flight) starts no run until
 * it resets (SPEND_LIMIT_REACHED, with the reset time).
 */
export class SpendPolicy {
  constructor(
    private readonly spend: SpendRepository,
    private readonly operator: SpendLimits,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async limitsOf(userId: string): Promise<SpendLimits> {
    return effectiveLimits(this.operator, await this.spend.ownLimits(userId));
  }

  async assertRoomForRun(userId: string): Promise<void> {
    const now = this.clock();
    const periods = limitedPeriods(await this.limitsOf(userId), now);
    if (!periods.length) return;
    const spend = await this.spend.spendOf(
      userId,
      periods.map(({ period }) => period),
    );
    for (const period of periods) {
      const { spent, reserved } = spend.get(period.period)!;
      if (spent + reserved >= period.limit) throw spendLimitReached(period, spent + reserved, now);
    }
  }
}
