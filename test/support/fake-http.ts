// What the model fakes share: scripted answers and how they are written (test/support/model-fake.ts for
// the chat-completions protocol, anthropic-fake.ts for Anthropic's Messages API).
import type { ServerResponse } from 'node:http';
import type { StreamOptions } from './fake-stream';

/** One scripted answer: a status, a JSON body (or raw text), extra headers, an optional delay. */
export interface FakeReply {
  status: number;
  body?: unknown;
  /** Sent as is instead of `body` (with a JSON content type): a malformed answer. */
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** How a 200 answer streams when the request asked for a stream (`stream: true`): pace, piece size, a stall. */
  stream?: StreamOptions;
}

export interface ErrorOptions {
  message?: string;
  /** Sent as `retry-after` (seconds). */
  retryAfterSeconds?: number;
  /** Sent as `retry-after-ms`. */
  retryAfterMs?: number;
  delayMs?: number;
}

/** Replaced by the requested model when served, as a provider echoes it. */
export const ECHO_MODEL = '<requested model>';

/** `retry-after` and `retry-after-ms` as asked. */
export function retryHeaders(options: ErrorOptions): Record<string, string> {
  return {
    ...(options.retryAfterSeconds !== undefined ? { 'retry-after': String(options.retryAfterSeconds) } : {}),
    ...(options.retryAfterMs !== undefined ? { 'retry-after-ms': String(options.retryAfterMs) } : {}),
  };
}

/** Writes a scripted answer, the requested model in place of ECHO_MODEL. */
export function send(res: ServerResponse, answer: FakeReply, requestedModel?: string): void {
  let text = answer.raw;
  if (text === undefined) {
    const body = answer.body as { model?: unknown } | undefined;
    text = JSON.stringify(body?.model === ECHO_MODEL ? { ...body, model: requestedModel || 'fake-model' } : (body ?? null));
  }
  res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
  res.end(text);
}
