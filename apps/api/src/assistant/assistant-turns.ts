// A turn awaited whole, for callers that read no event stream (the MCP tool): the message goes to the
// session, its events are gathered until the turn's final one (or SSE_IDLE_SECONDS without an event), and
// the session is read again, so the answer says whether it takes the next message.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AssistantRepository } from '@app/persistence';
import { AssistantService } from './assistant.service';
import { toSessionView, type SessionView } from './assistant.views';
import { followEvents } from './event-stream';
import { StreamSlots } from '../common/stream-slots';

export interface AwaitedTurn {
  /** False when no event came for SSE_IDLE_SECONDS: the turn goes on, get_assistant_session follows it. */
  turn_finished: boolean;
  events: Record<string, unknown>[];
  session: SessionView;
}

const DATA_LINE = /^data: (.*)$/m;

@Injectable()
export class AssistantTurns {
  constructor(
    readonly assistant: AssistantService,
    private readonly sessions: AssistantRepository,
    private readonly slots: StreamSlots,
    private readonly config: AppConfig,
  ) {}

  /** Counted with the event streams (a wait polls as one does), per user: the tool knows no API key. */
  async converse(userId: string, uuid: string, body: unknown): Promise<AwaitedTurn> {
    return this.slots.holding(`user:${userId}`, async () => {
      const { session, after } = await this.assistant.sendMessage(userId, uuid, body);
      const events: Record<string, unknown>[] = [];
      const sink = {
        // One event per write (`id: …\ndata: …`); comments (keep-alives, the idle notice) carry no data.
        write: (chunk: string) => {
          const data = DATA_LINE.exec(chunk);
          if (data) events.push(JSON.parse(data[1]) as Record<string, unknown>);
        },
        closed: () => false,
      };
      await followEvents(sink, this.sessions, session.uuid, after, {
        resuming: false,
        sessionEnded: false,
        idleMs: this.config.assistant.streamIdleSeconds * 1000,
      });
      const turn_finished = events[events.length - 1]?.is_final === true;
      return { turn_finished, events, session: toSessionView(await this.assistant.find(userId, session.uuid)) };
    });
  }
}
