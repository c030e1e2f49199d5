import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { paginationOf } from '../common/pagination';
import { RunsService } from './runs.service';

@ApiTags('runs')
@ApiBearerAuth()
@Controller()
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post('workflows/:uuid/runs')
  start(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.runs.startFromRequest(user.userId, uuid, body);
  }

  @Get('workflows/:uuid/runs')
  listForWorkflow(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Query() query: Record<string, string>) {
    return this.runs.list(user.userId, { ...paginationOf(query), status: query.status, workflow_uuid: uuid });
  }

  @Get('runs')
  list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, string>) {
    return this.runs.list(user.userId, { ...paginationOf(query), status: query.status, workflow_uuid: query.workflow_uuid, schedule_id: query.schedule_id });
  }

  @Get('runs/:uuid')
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.runs.get(user.userId, uuid);
  }

  @Post('runs/:uuid/cancel')
  @HttpCode(202)
  cancel(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.runs.cancel(user.userId, uuid);
  }

  @Get('outputs/:outputId')
  output(@CurrentUser() user: AuthenticatedUser, @Param('outputId') outputId: string) {
    return this.runs.output(user.userId, outputId);
  }
}
