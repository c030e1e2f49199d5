import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { isUuid, notFound } from '@app/domain';
import { RunRepository, WorkflowRepository } from '@app/persistence';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { assertNotPast, resumeField, resumeFrom, streamTo } from '../common/event-stream';
import { ApiEventStream, ApiResumePoint } from '../common/openapi-streams';
import { StreamSlots } from '../common/stream-slots';
import { RunWatch } from './run-watch';

/** A run's events as it works (and its answers' pieces as they stream), and all the runs' events of a workflow: SSE. */
@ApiTags('runs')
@ApiBearerAuth()
@Controller()
export class RunEventsController {
  constructor(
    private readonly watch: RunWatch,
    private readonly runs: RunRepository,
    private readonly workflows: WorkflowRepository,
    private readonly slots: StreamSlots,
  ) {}

  /**
   * Replays the run's events after Last-Event-ID (or ?after=), then follows it to its final event (`run_ended`),
   * with the streamed answers' pieces (`delta`, and `text_so_far` for a call in flight when the stream starts).
   */
  @Get('runs/:uuid/events')
  @ApiResumePoint()
  @ApiEventStream('RunEvent', 404, 422, 429)
  async runEvents(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    const from = resumeFrom(lastEventId, after);
    const run = isUuid(uuid) ? await this.runs.findRun(user.userId, uuid) : null;
    if (!run) throw notFound('Run', uuid);
    assertNotPast(from, await this.watch.events.lastSeq(uuid), resumeField(lastEventId), 'run');
    await this.slots.holding(user.keyId, () => streamTo(request, response, (sink) => this.watch.run(uuid, run.definition, sink, from)));
  }

  /** The events of every run of the workflow after Last-Event-ID (or ?after=; ids are across runs), until idle. */
  @Get('workflows/:uuid/events')
  @ApiResumePoint()
  @ApiEventStream('RunEvent', 404, 422, 429)
  async workflowEvents(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    const from = resumeFrom(lastEventId, after, 15);
    if (!isUuid(uuid) || !(await this.workflows.find(user.userId, uuid))) throw notFound('Workflow', uuid);
    await this.slots.holding(user.keyId, () => streamTo(request, response, (sink) => this.watch.workflow(uuid, sink, from)));
  }
}
