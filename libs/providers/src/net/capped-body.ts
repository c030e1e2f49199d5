// A bound on what the worker reads of an answer a user's tool or MCP server sends: the body is counted as
// it streams in, and once it passes the cap the stream fails and its source is cancelled (the connection
// closes), so the rest is never downloaded nor buffered. An event stream (SSE) is bounded per event, each
// event being one message: a server's long-lived stream may carry many.

/** An answer passed TOOL_ANSWER_MAX_BYTES: the read stopped there. */
export class AnswerTooLargeError extends Error {
  readonly code = 'TOOL_ANSWER_TOO_LARGE';

  constructor(readonly maxBytes: number) {
    super(`TOOL_ANSWER_TOO_LARGE: the answer passed ${maxBytes} bytes (TOOL_ANSWER_MAX_BYTES) and was not read further`);
    this.name = 'AnswerTooLargeError';
  }
}

/** Statuses a Response may not be built with a body for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const CR = 13;
const LF = 10;

/** Counts the bytes of one SSE event: a blank line ends it (CRLF, LF or CR line ends). */
class EventSizer {
  private size = 0;
  private atLineStart = true;
  private previous = 0;

  /** Whether the event being read passed `maxBytes` somewhere in this chunk. */
  passes(chunk: Uint8Array, maxBytes: number): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      const crlf = byte === LF && this.previous === CR;
      this.previous = byte;
      if (crlf) continue;
      if (byte === LF || byte === CR) {
        if (this.atLineStart) this.size = 0;
        this.atLineStart = true;
      } else {
        this.atLineStart = false;
      }
      if (++this.size > maxBytes) return true;
    }
    return false;
  }
}

/**
 * The response with its body bounded: past `maxBytes` (a declared content-length over it at once) the
 * body fails with AnswerTooLargeError, handed to `onTooLarge` too (for a reader that would not report a
 * failed stream, such as an SSE parser). A text/event-stream body is bounded per event.
 */
export function cappedResponse(response: Response, maxBytes: number, onTooLarge?: (error: AnswerTooLargeError) => void): Response {
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
  const events = /^\s*text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const sizer = events ? new EventSizer() : null;
  let size = 0;
  const fail = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const error = new AnswerTooLargeError(maxBytes);
    onTooLarge?.(error);
    controller.error(error);
  };
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (!events && declared > maxBytes) fail(controller);
      },
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (sizer ? sizer.passes(chunk, maxBytes) : size > maxBytes) return fail(controller);
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}
