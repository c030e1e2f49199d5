import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { BACKFILL_BODY, SCHEDULE_BODY, SCHEDULE_PATCH_BODY } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody } from '../common/openapi';
import { SchedulesService } from './schedules.service';

@ApiTags('schedules')
@ApiBearerAuth()
@Controller()
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Post('workflows/:uuid/schedules')
  @ApiJsonBody(SCHEDULE_BODY)
  @ApiAnswers(201, 'ScheduleCreated', 400, 404, 409, 422)
  create(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.schedules.create(user.userId, uuid, body);
  }

  @Get('workflows/:uuid/schedules')
  @ApiAnswers(200, 'ScheduleList', 404)
  list(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.schedules.listForWorkflow(user.userId, uuid);
  }

  @Get('schedules/:id')
  @ApiAnswers(200, 'Schedule', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.get(user.userId, id);
  }

  @Patch('schedules/:id')
  @ApiJsonBody(SCHEDULE_PATCH_BODY)
  @ApiAnswers(200, 'Schedule', 400, 404, 422)
  update(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string, @Body() body: unknown) {
    return this.schedules.update(user.userId, id, body);
  }

  @Post('schedules/:id/trigger')
  @ApiAnswers(202, 'ScheduleTriggered', 404, 409)
  @HttpCode(202)
  trigger(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.trigger(user.userId, id);
  }

  @Post('schedules/:id/backfill')
  @ApiJsonBody(BACKFILL_BODY)
  @ApiAnswers(202, 'BackfillStarted', 400, 404, 409, 422)
  @HttpCode(202)
  backfill(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string, @Body() body: unknown) {
    return this.schedules.backfill(user.userId, id, body);
  }

  @Delete('schedules/:id')
  @ApiAnswers(204, null, 404)
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.remove(user.userId, id);
  }
}
