import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { effectiveLimits, periodKeys, type SpendLimits } from '@app/domain';
import { SpendRepository } from '@app/persistence';
import { SpendRechecks } from '@app/runs';

const wire = ({ daily, monthly }: SpendLimits) => ({ daily_usd: daily, monthly_usd: monthly });

/** A user's spend limits as GET /usage/limits shows them, and their own set by PUT. */
@Injectable()
export class SpendLimitsService {
  constructor(
    private readonly spend: SpendRepository,
    private readonly config: AppConfig,
    private readonly rechecks: SpendRechecks,
  ) {}

  async view(userId: string) {
    const operator = { daily: this.config.costs.userDailyLimit, monthly: this.config.costs.userMonthlyLimit };
    const own = await this.spend.ownLimits(userId);
    const { day, month } = periodKeys(new Date());
    const held = await this.spend.spendOf(userId, [day, month]);
    return {
      operator: wire(operator),
      own: wire(own),
      applied: wire(effectiveLimits(operator, own)),
      today: { day, ...held.get(day)! },
      this_month: { month, ...held.get(month)! },
    };
  }

  /** The user's own limits; their runs paused on a limit try their call again at once (raised, they go on). */
  async set(userId: string, limits: SpendLimits) {
    await this.spend.setOwnLimits(userId, limits);
    await this.rechecks.forUser(userId);
    return this.view(userId);
  }
}
