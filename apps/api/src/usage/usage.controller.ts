import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { usageRangeOf } from '@app/domain';
import { UsageRepository } from '@app/persistence';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiFilters } from '../common/openapi';
import { queryParam } from '../common/pagination';

const DAY = { type: 'string', format: 'date', description: 'A UTC day, YYYY-MM-DD' } as const;

@ApiTags('usage')
@ApiBearerAuth()
@Controller('usage')
export class UsageController {
  constructor(private readonly usage: UsageRepository) {}

  /** The key's user's completed model calls from `from` to `to` (UTC days, both included; at most 92): tokens and dollars by day, workflow and model. */
  @Get()
  @ApiFilters(['from', DAY], ['to', DAY])
  @ApiAnswers(200, 'Usage', 422)
  async report(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, string>) {
    const range = usageRangeOf({ from: queryParam(query, 'from'), to: queryParam(query, 'to') }, new Date());
    return { from: range.first, to: range.last, currency: 'USD', ...(await this.usage.report(user.userId, range.from, range.to)) };
  }
}
