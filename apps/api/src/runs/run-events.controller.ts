import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode, isUuid, notFound } from '@app/domain';
import { RunRepository, WorkflowRepository } from '@app/persistence';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { resumePoint, streamTo } from '../common/event-stream';
import { ApiEventStream, ApiResumePoint } from '../common/openapi-streams';
import { StreamSlots } from '../common/stream-slots';
import { RunWatch } from './run-watch';

/** The resume point a request names, or a 422 naming the header or parameter that is not an event id. */
function resumeFrom(lastEventId: string | undefined, after: unknown, digits?: number): number {
  const from = resumePoint(lastEventId, typeof after === 'string' ? after : undefined, digits);
  if (from === null)
    throw new DomainError(ErrorCode.ValidationFailed, 'Last-Event-ID and after must be an event id (a whole number)', {
      field: lastEventId !== undefined ? 'Last-Event-ID' : 'after',
    });
  return from;
}

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
    const last = await this.watch.events.lastSeq(uuid);
    if (from > last) {
      const field = lastEventId !== undefined ? 'Last-Event-ID' : 'after';
      throw new DomainError(ErrorCode.ValidationFailed, `${field} ${from} is past the run's last event (${last})`, {
        field,
        last_event_id: last,
      });
    }
    const release = this.slots.take(user.keyId);
    try {
      await streamTo(request, response, (sink) => this.watch.run(uuid, run.definition, sink, from));
    } finally {
      release();
    }
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
    const release = this.slots.take(user.keyId);
    try {
      await streamTo(request, response, (sink) => this.watch.workflow(uuid, sink, from));
    } finally {
      release();
    }
  }
}
