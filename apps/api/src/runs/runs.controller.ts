import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiResponse, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { RUN_STATUSES } from '@app/contracts';
import { BUDGET_APPROVAL_BODY, HUMAN_ANSWER_BODY, MESSAGE_BODY, REPLAY_BODY, RESUME_BODY, RUN_START_BODY } from '@app/domain';
import type { Response } from 'express';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiFilters, ApiIdempotencyKey, ApiJsonBody, ApiPaged, ref } from '../common/openapi';
import { paginationOf, queryParam } from '../common/pagination';
import { RunsService } from './runs.service';

const IDEMPOTENCY_HEADER = 'idempotency-key';
const STATUS: SchemaObject = { type: 'string', enum: [...RUN_STATUSES] };

function answered<T>(response: Response, { created, run }: { created: boolean; run: T }): T {
  response.status(created ? 201 : 200);
  return run;
}

@ApiTags('runs')
@ApiBearerAuth()
@Controller()
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  /** 201 with a new run; 200 with the same run when an Idempotency-Key names one already started. */
  @Post('workflows/:uuid/runs')
  @ApiJsonBody(RUN_START_BODY)
  @ApiIdempotencyKey()
  @ApiAnswers(201, 'Run', 200, 400, 404, 409, 413, 422, 503)
  async start(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_HEADER) key: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    return answered(response, await this.runs.startFromRequest(user.userId, uuid, body, key));
  }

  @Post('runs/:uuid/resume')
  @ApiJsonBody(RESUME_BODY)
  @ApiIdempotencyKey()
  @ApiAnswers(201, 'Run', 200, 400, 404, 409, 422, 503)
  async resume(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_HEADER) key: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    return answered(response, await this.runs.resume(user.userId, uuid, body, key));
  }

  /** 201 with the replay run; it answers from the recorded run what it asks the same (GET /runs/{uuid}/replay-report compares them). */
  @Post('runs/:uuid/replay')
  @ApiJsonBody(REPLAY_BODY)
  @ApiIdempotencyKey()
  @ApiAnswers(201, 'Run', 200, 400, 404, 409, 413, 422, 503)
  async replay(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_HEADER) key: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    return answered(response, await this.runs.replay(user.userId, uuid, body, key));
  }

  @Get('runs/:uuid/replay-report')
  @ApiAnswers(200, 'ReplayReport', 404)
  replayReport(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.runs.replayReport(user.userId, uuid);
  }

  @Get('workflows/:uuid/runs')
  @ApiPaged()
  @ApiFilters(['status', STATUS])
  @ApiAnswers(200, 'RunPage', 404, 422)
  listForWorkflow(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Query() query: Record<string, string>) {
    return this.runs.listForWorkflow(user.userId, uuid, { ...paginationOf(query), status: queryParam(query, 'status') });
  }

  @Get('runs')
  @ApiPaged()
  @ApiFilters(['status', STATUS], ['workflow_uuid', { type: 'string', format: 'uuid' }], ['schedule_id', { type: 'string' }])
  @ApiAnswers(200, 'RunPage', 422)
  list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, string>) {
    return this.runs.list(user.userId, {
      ...paginationOf(query),
      status: queryParam(query, 'status'),
      workflow_uuid: queryParam(query, 'workflow_uuid'),
      schedule_id: queryParam(query, 'schedule_id'),
    });
  }

  @Get('runs/:uuid')
  @ApiAnswers(200, 'Run', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.runs.get(user.userId, uuid);
  }

  @Post('runs/:uuid/approve-budget')
  @HttpCode(200)
  @ApiJsonBody(BUDGET_APPROVAL_BODY)
  @ApiAnswers(
    200,
    { type: 'object', properties: { run_uuid: { type: 'string', format: 'uuid' }, max_tokens: { type: 'integer' } } },
    400,
    404,
    409,
    422,
  )
  approveBudget(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.runs.approveBudget(user.userId, uuid, body);
  }

  @Post('runs/:uuid/cancel')
  @ApiAnswers(202, 'Cancelled', 404, 409)
  @HttpCode(202)
  cancel(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.runs.cancel(user.userId, uuid);
  }

  /** A person's answer to a waiting human_input step: 200 accepted, 422 when it breaks input_schema, 409 when the step does not wait. */
  @Post('runs/:uuid/steps/:stepUuid/input')
  @ApiJsonBody(HUMAN_ANSWER_BODY)
  @ApiAnswers(200, { type: 'object', description: 'The answer was taken: {run_uuid, step_uuid, accepted}' }, 400, 404, 409, 422)
  @HttpCode(200)
  answer(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Param('stepUuid') stepUuid: string, @Body() body: unknown) {
    return this.runs.answer(user.userId, uuid, stepUuid, body);
  }

  /** A user message to a conversational run: 200 with the turn's reply, 202 with its id when it outlives wait_seconds (default 60), 409 while a turn runs or once the conversation closed. */
  @Post('runs/:uuid/messages')
  @ApiJsonBody(MESSAGE_BODY)
  @ApiQuery({ name: 'wait_seconds', required: false, schema: { type: 'integer', minimum: 0, maximum: 300, default: 60 } })
  @ApiAnswers(200, 'TurnReply', 400, 404, 409, 422)
  @ApiResponse({ status: 202, schema: ref('TurnAccepted'), description: 'The turn outlived wait_seconds: look it up later' })
  async message(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @Query('wait_seconds') waitSeconds: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    const outcome = await this.runs.sendMessage(user.userId, uuid, body, waitSeconds);
    response.status(outcome.answered ? 200 : 202);
    return outcome.answered ? outcome.reply : { run_uuid: uuid, turn_id: outcome.turn_id, status: 'running' };
  }

  @Get('outputs/:outputId')
  @ApiAnswers(200, 'Output', 404)
  output(@CurrentUser() user: AuthenticatedUser, @Param('outputId') outputId: string) {
    return this.runs.output(user.userId, outputId);
  }
}
