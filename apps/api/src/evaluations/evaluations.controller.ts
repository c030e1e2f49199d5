import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { DATASET_BODY, EVALUATION_BODY } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody } from '../common/openapi';
import { EvaluationsService } from './evaluations.service';

const object = (description: string) => ({ type: 'object' as const, description });
const EVALUATION = object(
  'uuid, workflow_uuid, dataset, targets (the baseline first when two), status (running, completed, failed, cancelled), case_count, report: {targets: [{target, passed, failed, cases: [{case, run_uuid, passed, assertions: [{name, passed, actual, expected}]}]}], comparison: {regressions, fixes, changes: [{change, case, assertion, baseline, candidate}]} | null}',
);

@ApiTags('evaluations')
@ApiBearerAuth()
@Controller()
export class EvaluationsController {
  constructor(private readonly evaluations: EvaluationsService) {}

  @Post('workflows/:uuid/datasets')
  @HttpCode(200)
  @ApiJsonBody(DATASET_BODY)
  @ApiAnswers(200, object('uuid, workflow_uuid, name, cases, updated_at'), 400, 404, 422)
  saveDataset(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.evaluations.saveDataset(user.userId, uuid, body);
  }

  @Get('workflows/:uuid/datasets')
  @ApiAnswers(200, object('items: [{uuid, name, updated_at}]'), 404)
  listDatasets(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.evaluations.listDatasets(user.userId, uuid);
  }

  /** 201 with the evaluation running; GET /evaluations/{uuid} shows its report once it completed. */
  @Post('workflows/:uuid/evaluations')
  @ApiJsonBody(EVALUATION_BODY)
  @ApiAnswers(201, EVALUATION, 400, 404, 422, 503)
  start(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.evaluations.start(user.userId, uuid, body);
  }

  @Get('evaluations/:uuid')
  @ApiAnswers(200, EVALUATION, 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.evaluations.get(user.userId, uuid);
  }

  @Post('evaluations/:uuid/cancel')
  @HttpCode(200)
  @ApiAnswers(200, object('uuid, status, cancel_requested'), 404)
  cancel(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.evaluations.cancel(user.userId, uuid);
  }
}
