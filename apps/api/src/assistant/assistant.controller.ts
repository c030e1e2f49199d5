import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { AssistantRepository } from '@app/persistence';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody, ApiPaged } from '../common/openapi';
import { paginationOf } from '../common/pagination';
import { ApiEventStream, ApiResumePoint } from '../common/openapi-streams';
import { AssistantService } from './assistant.service';
import { resumeField, resumeFrom } from '../common/event-stream';
import { StreamSlots } from '../common/stream-slots';
import { assertResumable, streamEvents, type StreamOptions } from './event-stream';

@ApiTags('assistant')
@ApiBearerAuth()
@Controller('assistant/sessions')
export class AssistantController {
  constructor(
    private readonly assistant: AssistantService,
    private readonly sessions: AssistantRepository,
    private readonly slots: StreamSlots,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @ApiJsonBody('NewAssistantSession')
  @ApiAnswers(201, 'AssistantSession', 400, 404, 422, 503)
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.assistant.create(user.userId, body);
  }

  @Get()
  @ApiPaged()
  @ApiAnswers(200, 'AssistantSessionPage', 422)
  list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, string>) {
    return this.assistant.list(user.userId, paginationOf(query));
  }

  @Get(':uuid')
  @ApiAnswers(200, 'AssistantSession', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.assistant.get(user.userId, uuid);
  }

  @Delete(':uuid')
  @HttpCode(204)
  @ApiAnswers(204, null, 404)
  async remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    await this.assistant.remove(user.userId, uuid);
  }

  /**
   * The message starts a turn (after a save, an edit of the saved workflow); its events stream until the
   * turn's final one. 409 while a turn runs or once the session ended; 429 when the key holds its most streams (checked first: a refused stream sends no message).
   */
  @Post(':uuid/messages')
  @ApiJsonBody('AssistantMessage')
  @ApiEventStream('AssistantEvent', 400, 404, 409, 422, 429, 503)
  async message(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    await this.slots.holding(user.keyId, async () => {
      const { session, after } = await this.assistant.sendMessage(user.userId, uuid, body);
      const options = this.streamOptions({ resuming: false, sessionEnded: false });
      await streamEvents(request, response, this.sessions, session.uuid, after, options);
    });
  }

  /**
   * Replays the events after Last-Event-ID (or ?after=), then follows the turn to its final event; a 422
   * for an id past the session's last event.
   */
  @Get(':uuid/events')
  @ApiResumePoint()
  @ApiEventStream('AssistantEvent', 404, 422, 429)
  async events(
    @CurrentUser() user: AuthenticatedUser,
    @Param('uuid') uuid: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    const from = resumeFrom(lastEventId, after);
    const session = await this.assistant.find(user.userId, uuid);
    await assertResumable(this.sessions, session.uuid, from, resumeField(lastEventId));
    const options = this.streamOptions({ resuming: true, sessionEnded: !session.is_open });
    await this.slots.holding(user.keyId, () => streamEvents(request, response, this.sessions, session.uuid, from, options));
  }

  private streamOptions(options: Pick<StreamOptions, 'resuming' | 'sessionEnded'>): StreamOptions {
    return { ...options, idleMs: this.config.assistant.streamIdleSeconds * 1000 };
  }
}
