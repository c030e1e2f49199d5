import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { SchedulesService } from './schedules.service';

@ApiTags('schedules')
@ApiBearerAuth()
@Controller()
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Post('workflows/:uuid/schedules')
  create(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.schedules.create(user.userId, uuid, body);
  }

  @Get('workflows/:uuid/schedules')
  list(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.schedules.listForWorkflow(user.userId, uuid);
  }

  @Get('schedules/:id')
  get(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.get(user.userId, id);
  }

  @Patch('schedules/:id')
  update(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string, @Body() body: unknown) {
    return this.schedules.update(user.userId, id, body);
  }

  @Post('schedules/:id/trigger')
  @HttpCode(202)
  trigger(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.trigger(user.userId, id);
  }

  @Post('schedules/:id/backfill')
  @HttpCode(202)
  backfill(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string, @Body() body: unknown) {
    return this.schedules.backfill(user.userId, id, body);
  }

  @Delete('schedules/:id')
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return this.schedules.remove(user.userId, id);
  }
}
