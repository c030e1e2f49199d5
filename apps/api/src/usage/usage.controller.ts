import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { SPEND_LIMITS_BODY, usageRangeOf } from '@app/domain';
import { AppConfig } from '@app/config';
import { UsageRepository } from '@app/persistence';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiFilters, ApiJsonBody } from '../common/openapi';
import { queryParam } from '../common/pagination';
import { SpendLimitsService } from './spend-limits.service';

const DAY = { type: 'string', format: 'date', description: 'A UTC day, YYYY-MM-DD' } as const;

@ApiTags('usage')
@ApiBearerAuth()
@Controller('usage')
export class UsageController {
  constructor(
    private readonly usage: UsageRepository,
    private readonly limits: SpendLimitsService,
    private readonly config: AppConfig,
  ) {}

  /** The key's user's completed model calls from `from` to `to` (UTC days, both included; at most USAGE_MAX_DAYS, 400 USAGE_RANGE_TOO_LONG past it): tokens and dollars by day, workflow and model. */
  @Get()
  @ApiFilters(['from', DAY], ['to', DAY])
  @ApiAnswers(200, 'Usage', 400, 422)
  async report(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, string>) {
    const range = usageRangeOf(
      { from: queryParam(query, 'from'), to: queryParam(query, 'to') },
      new Date(),
      this.config.costs.usageMaxDays,
    );
    return { from: range.first, to: range.last, currency: 'USD', ...(await this.usage.report(user.userId, range.from, range.to)) };
  }

  /** The user's spend limits: the operator's, the user's own, the ones that apply, and what today and this month hold. */
  @Get('limits')
  @ApiAnswers(200, 'SpendLimitsView')
  view(@CurrentUser() user: AuthenticatedUser) {
    return this.limits.view(user.userId);
  }

  /** Sets the user's own limits (null: none); the lower of theirs and the operator's applies. Their runs paused on a limit try their call again at once. */
  @Put('limits')
  @ApiJsonBody(SPEND_LIMITS_BODY)
  @ApiAnswers(200, 'SpendLimitsView', 400, 422)
  async set(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.limits.set(user.userId, SPEND_LIMITS_BODY.parse(body));
  }
}
