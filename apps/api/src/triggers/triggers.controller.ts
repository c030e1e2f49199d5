import { Body, Controller, Delete, Get, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody, ApiPaged } from '../common/openapi';
import { paginationOf } from '../common/pagination';
import { TriggersService } from './triggers.service';

@ApiTags('triggers')
@ApiBearerAuth()
@Controller()
export class TriggersController {
  constructor(private readonly triggers: TriggersService) {}

  @Put('workflows/:uuid/trigger')
  @ApiJsonBody('Trigger')
  @ApiAnswers(200, 'WorkflowWithDetails', 400, 404, 409, 422)
  put(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.triggers.put(user.userId, uuid, body);
  }

  @Delete('workflows/:uuid/trigger')
  @ApiAnswers(200, 'WorkflowWithDetails', 404)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.triggers.remove(user.userId, uuid);
  }

  @Get('triggers/:triggerUuid')
  @ApiAnswers(200, 'Trigger', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('triggerUuid') triggerUuid: string) {
    return this.triggers.get(user.userId, triggerUuid);
  }

  @Patch('triggers/:triggerUuid')
  @ApiJsonBody('TriggerPatch')
  @ApiAnswers(200, 'Trigger', 400, 404, 422)
  update(@CurrentUser() user: AuthenticatedUser, @Param('triggerUuid') triggerUuid: string, @Body() body: unknown) {
    return this.triggers.update(user.userId, triggerUuid, body);
  }

  @Post('triggers/:triggerUuid/rotate-secret')
  @ApiAnswers(201, 'SecretRotation', 404, 422)
  rotateSecret(@CurrentUser() user: AuthenticatedUser, @Param('triggerUuid') triggerUuid: string) {
    return this.triggers.rotateSecret(user.userId, triggerUuid);
  }

  @Get('triggers/:triggerUuid/events')
  @ApiPaged()
  @ApiAnswers(200, 'TriggerEventPage', 404, 422)
  events(@CurrentUser() user: AuthenticatedUser, @Param('triggerUuid') triggerUuid: string, @Query() query: Record<string, unknown>) {
    return this.triggers.events(user.userId, triggerUuid, paginationOf(query));
  }
}
