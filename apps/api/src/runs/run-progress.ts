// A run's progress for clients that read no event stream (MCP's watch_run): the events after one the client
// saw, waited for a while if there are none yet, and each model call in flight's text so far. Counted with
// the event streams per user, as the assistant's awaited turns are: a wait polls as a stream does.
import { Injectable } from '@nestjs/common';
import { isUuid, notFound } from '@app/domain';
import { RunEventRepository, RunRepository } from '@app/persistence';
import { assertNotPast, sleep } from '../common/event-stream';
import { StreamSlots } from '../common/stream-slots';
import { withInputSchema } from './run-hub';

const POLL_MS = 200;
const BATCH = 200;
export const MAX_WAIT_SECONDS = 60;

export interface RunProgressView {
  events: Record<string, unknown>[];
  /** Pass as `after` next time. */
  last_event_id: number;
  /** The run's final event is among those seen: nothing follows. */
  run_ended: boolean;
  /** Each model call in flight: its answer so far. */
  answers_in_flight: { instance_uuid: string; turn: number; attempt: number; text: string }[];
}

@Injectable()
export class RunProgress {
  constructor(
    private readonly events: RunEventRepository,
    private readonly runs: RunRepository,
    private readonly slots: StreamSlots,
  ) {}

  /** The run's events after `after`; with none yet, waits up to `waitSeconds` for the next. */
  async after(userId: string, runUuid: string, after: number, waitSeconds: number): Promise<RunProgressView> {
    const run = isUuid(runUuid) ? await this.runs.findRun(userId, runUuid) : null;
    if (!run) throw notFound('Run', runUuid);
    assertNotPast(after, await this.events.lastSeq(runUuid), 'after', 'run');
    return this.slots.holding(`user:${userId}`, async () => {
      const deadline = Date.now() + waitSeconds * 1000;
      let events = await this.events.eventsAfter(runUuid, after, BATCH);
      while (!events.length && Date.now() < deadline) {
        await sleep(POLL_MS);
        events = await this.events.eventsAfter(runUuid, after, BATCH);
      }
      const lastSeen = events.at(-1);
      const answers = await Promise.all(
        (await this.events.callsInFlight(runUuid)).map(async (call) => ({
          instance_uuid: call.step_instance_uuid,
          turn: call.turn,
          attempt: call.attempt,
          text: (await this.events.deltasOf(runUuid, call, Number.MAX_SAFE_INTEGER, 100_000))
            .filter((delta) => delta.kind === 'text')
            .map((delta) => delta.text)
            .join(''),
        })),
      );
      return {
        events: events
          .map((event) => withInputSchema(event, run.definition))
          .map((event) => ({ type: event.type, seq: event.seq, at: event.created_at, ...event.payload })),
        last_event_id: lastSeen?.seq ?? after,
        run_ended: (lastSeen ?? (after ? (await this.events.eventsAfter(runUuid, after - 1, 1))[0] : undefined))?.type === 'run_ended',
        answers_in_flight: answers,
      };
    });
  }
}
