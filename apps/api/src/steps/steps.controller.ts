import { Body, Controller, Delete, Get, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody } from '../common/openapi';
import { StepsService } from './steps.service';

@ApiTags('steps')
@ApiBearerAuth()
@Controller()
export class StepsController {
  constructor(private readonly steps: StepsService) {}

  @Post('workflows/:uuid/steps')
  @ApiJsonBody('NewStep')
  @ApiAnswers(201, 'WorkflowWithDetails', 400, 404, 409, 422)
  add(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.steps.add(user.userId, uuid, body);
  }

  @Put('workflows/:uuid/steps/order')
  @ApiJsonBody('StepOrder')
  @ApiAnswers(200, 'WorkflowWithDetails', 400, 404, 422)
  reorder(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.steps.reorder(user.userId, uuid, body);
  }

  @Delete('workflows/:uuid/steps/:stepUuid')
  @ApiAnswers(200, 'WorkflowWithDetails', 404, 422)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Param('stepUuid') stepUuid: string) {
    return this.steps.remove(user.userId, uuid, stepUuid);
  }

  @Get('steps/:stepUuid')
  @ApiAnswers(200, 'Step', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('stepUuid') stepUuid: string) {
    return this.steps.get(user.userId, stepUuid);
  }

  @Patch('steps/:stepUuid')
  @ApiJsonBody('StepPatch')
  @ApiAnswers(200, 'Step', 400, 404, 422)
  update(@CurrentUser() user: AuthenticatedUser, @Param('stepUuid') stepUuid: string, @Body() body: unknown) {
    return this.steps.update(user.userId, stepUuid, body);
  }
}
