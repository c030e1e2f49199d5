// What every SSE stream of the API shares (the assistant's, a run's, a workflow's): where a reconnecting
// client picks up, the response opened as an event stream and always ended, and the pauses that keep an
// idle connection alive until it has been idle too long. Each stream reads its own events from MySQL.
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '@app/domain';

/** Written when nothing else was for this long, so proxies keep the connection. */
export const KEEPALIVE_MS = 15_000;

/**
 * `Last-Event-ID` (what EventSource sends on reconnecting), else `?after=`, else 0: the id to start after,
 * of at most `digits` digits (9: an INT seq; 15: a BIGINT id), or null for anything else.
 */
export function resumePoint(lastEventId: string | undefined, after: string | undefined, digits = 9): number | null {
  const value = lastEventId ?? after;
  if (value === undefined || value === '') return 0;
  return new RegExp(`^\\d{1,${digits}}$`).test(value) ? Number(value) : null;
}

/** Which of the two a client named its resume point with: the field a 422 about it names. */
export const resumeField = (lastEventId: string | undefined): string => (lastEventId !== undefined ? 'Last-Event-ID' : 'after');

/** The resume point a request names, or a 422 naming the header or parameter that is not an event id. */
export function resumeFrom(lastEventId: string | undefined, after: unknown, digits?: number): number {
  const from = resumePoint(lastEventId, typeof after === 'string' ? after : undefined, digits);
  if (from === null)
    throw new DomainError(ErrorCode.ValidationFailed, 'Last-Event-ID and after must be an event id (a whole number)', {
      field: resumeField(lastEventId),
    });
  return from;
}

/** A resume point past the last event (of the run, the session) names no event it ever had: a stream after it would wait for nothing. */
export function assertNotPast(from: number, last: number, field: string, of: 'run' | 'session'): void {
  if (from > last)
    throw new DomainError(ErrorCode.ValidationFailed, `${field} ${from} is past the ${of}'s last event (${last})`, {
      field,
      last_event_id: last,
    });
}

/** Where events go: the response, or a test's list. */
export interface EventSink {
  write(chunk: string): void;
  closed(): boolean;
}

/** A response as an event stream: a sink over it, how much it holds unsent, and the response always ended once `follow` returns. */
export async function streamTo(
  request: Request,
  response: Response,
  follow: (sink: EventSink & { buffered(): number }) => Promise<void>,
): Promise<void> {
  response.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  response.flushHeaders();
  let closed = false;
  request.on('close', () => (closed = true));
  try {
    await follow({ write: (chunk) => response.write(chunk), closed: () => closed, buffered: () => response.writableLength });
  } finally {
    // Once the headers are out, a failure can only end the stream: the client reconnects with Last-Event-ID.
    response.end();
  }
}

/** The comment an idle stream ends with, naming where to pick up. */
export const idleNotice = (idleMs: number, cursor: number): string =>
  `: no event for ${Math.round(idleMs / 1000)} s: reconnect with Last-Event-ID ${cursor}\n\n`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
