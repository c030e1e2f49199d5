// The SSE side of the assistant: events are read from assistant_events (written by the worker's
// activities) and written as they come, each with its seq as the SSE id, so a client that reconnects with
// Last-Event-ID gets exactly what it missed. Nothing here holds a turn's work: closing the stream stops
// only the reading.
import type { Request, Response } from 'express';
import type { AssistantRepository } from '@app/persistence';

const POLL_MS = 150;
const KEEPALIVE_MS = 15_000;
const BATCH = 100;

/** `Last-Event-ID` (what EventSource sends on reconnecting), else `?after=`, else 0: the seq to start after. */
export function resumePoint(lastEventId: string | undefined, after: string | undefined): number | null {
  const value = lastEventId ?? after;
  if (value === undefined || value === '') return 0;
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes the session's events after `after` until the turn's last one (`is_final`) has been sent and
 * nothing follows it, or the client goes away. `resuming` (GET /events): starting at a final event with
 * nothing after it ends at once; a new message's stream (POST) waits for its turn's events instead.
 */
export async function streamEvents(request: Request, response: Response, sessions: AssistantRepository, sessionUuid: string, after: number, resuming: boolean): Promise<void> {
  response.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  response.flushHeaders();
  let closed = false;
  request.on('close', () => (closed = true));
  try {
    await follow(response, sessions, sessionUuid, after, resuming, () => closed);
  } finally {
    // Once the headers are out, a failure can only end the stream: the client reconnects with Last-Event-ID.
    response.end();
  }
}

async function follow(response: Response, sessions: AssistantRepository, sessionUuid: string, after: number, resuming: boolean, closed: () => boolean): Promise<void> {
  let cursor = after;
  let lastFinal = resuming && after > 0 && (await sessions.eventsAfter(sessionUuid, after - 1, 1))[0]?.payload.is_final === true;
  let quietSince = Date.now();
  while (!closed()) {
    const events = await sessions.eventsAfter(sessionUuid, cursor, BATCH);
    for (const { seq, payload } of events) {
      response.write(`id: ${seq}\ndata: ${JSON.stringify(payload)}\n\n`);
      cursor = seq;
      lastFinal = payload.is_final === true;
    }
    if (events.length === BATCH) continue;
    if (lastFinal) break;
    if (events.length) quietSince = Date.now();
    else if (Date.now() - quietSince > KEEPALIVE_MS) {
      response.write(': keep-alive\n\n');
      quietSince = Date.now();
    }
    await sleep(POLL_MS);
  }
}
