// The SSE side of the assistant: events are read from assistant_events (written by the worker's
// activities) and written as they come, each with its seq as the SSE id, so a client that reconnects with
// Last-Event-ID gets exactly what it missed. Nothing here holds a turn's work: closing the stream stops
// only the reading. Every stream ends: at its turn's final event, once a finished session's events are
// sent, or after SSE_IDLE_SECONDS without an event (the client picks up with Last-Event-ID).
import type { Request, Response } from 'express';
import type { AssistantRepository } from '@app/persistence';
import { assertNotPast, idleNotice, KEEPALIVE_MS, sleep, streamTo, type EventSink } from '../common/event-stream';

const POLL_MS = 150;
const BATCH = 100;

/** A resume point past the session's last event: a 422 (see assertNotPast). */
export async function assertResumable(
  sessions: Pick<AssistantRepository, 'lastSeq'>,
  sessionUuid: string,
  after: number,
  field: string,
): Promise<void> {
  assertNotPast(after, await sessions.lastSeq(sessionUuid), field, 'session');
}

export interface StreamOptions {
  /** GET /events: starting at a final event with nothing after it ends at once. */
  resuming: boolean;
  /** The session had ended (completed, failed) when the stream began: it ends once its events are sent. */
  sessionEnded: boolean;
  /** The stream ends after this long without an event. */
  idleMs: number;
  /** How often MySQL is asked for new events. */
  pollMs?: number;
}

/** Opens the response as an event stream, follows the session's events into it, and always ends it. */
export async function streamEvents(
  request: Request,
  response: Response,
  sessions: Pick<AssistantRepository, 'eventsAfter'>,
  sessionUuid: string,
  after: number,
  options: StreamOptions,
): Promise<void> {
  await streamTo(request, response, (sink) => followEvents(sink, sessions, sessionUuid, after, options));
}

/**
 * Writes the session's events after `after` until the turn's last one (`is_final`) has been sent and
 * nothing follows it, the session's events are all sent (it had ended), `idleMs` passes without an event,
 * or the client goes away. A new message's stream (POST) waits for its turn's events.
 */
export async function followEvents(
  sink: EventSink,
  sessions: Pick<AssistantRepository, 'eventsAfter'>,
  sessionUuid: string,
  after: number,
  options: StreamOptions,
): Promise<void> {
  const pollMs = options.pollMs ?? POLL_MS;
  let cursor = after;
  let lastFinal = options.resuming && after > 0 && (await sessions.eventsAfter(sessionUuid, after - 1, 1))[0]?.payload.is_final === true;
  let lastEventAt = Date.now();
  let lastWriteAt = lastEventAt;
  while (!sink.closed()) {
    const events = await sessions.eventsAfter(sessionUuid, cursor, BATCH);
    for (const { seq, payload } of events) {
      sink.write(`id: ${seq}\ndata: ${JSON.stringify(payload)}\n\n`);
      cursor = seq;
      lastFinal = payload.is_final === true;
    }
    if (events.length === BATCH) continue;
    if (lastFinal || options.sessionEnded) return;
    const now = Date.now();
    if (events.length) lastEventAt = lastWriteAt = now;
    else if (now - lastEventAt >= options.idleMs) {
      sink.write(idleNotice(options.idleMs, cursor));
      return;
    } else if (now - lastWriteAt > KEEPALIVE_MS) {
      sink.write(': keep-alive\n\n');
      lastWriteAt = now;
    }
    await sleep(pollMs);
  }
}
