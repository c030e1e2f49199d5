// The one way the worker sends HTTP for a user (tools, http_request, run-end notifications): through the
// egress-checked fetch, one deadline over the request and the body, the body read as a stream and never
// past a size (cut there, or the call failed), every failure a ToolCallError that says whether another
// attempt may help.
import { AnswerTooLargeError } from '../net/capped-body';
import { EgressDeniedError, type Fetch } from '../net/egress-fetch';
import { ToolCallError } from './tool-transport';

/** What http_request reads of a body before it cuts it (and says so). */
export const MAX_TOOL_BODY_BYTES = 256 * 1024;
/** TOOL_ANSWER_MAX_BYTES' default: the most a tool's or MCP server's answer may be; past it the call fails. */
export const DEFAULT_TOOL_ANSWER_MAX_BYTES = 1024 * 1024;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export interface FetchedText {
  status: number;
  headers: Headers;
  text: string;
  /** The body was longer than `maxBytes` and was cut there. */
  truncated: boolean;
}

export interface FetchOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** How much of the body is read at most (MAX_TOOL_BODY_BYTES unless given). */
  maxBytes?: number;
  /** Past `maxBytes`: `cut` the text there (`truncated`), or `fail` the call with TOOL_ANSWER_TOO_LARGE. */
  overMax?: 'cut' | 'fail';
  /** Names the call in error messages, e.g. `tool search_web`. */
  what: string;
  /** The egress-checked fetch (EgressPolicy.fetch) every call for a user goes through. */
  fetch: Fetch;
}

export async function fetchText(url: string, init: RequestInit, options: FetchOptions): Promise<FetchedText> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    const response = await options.fetch(url, { ...init, signal });
    const { text, truncated } = await readCapped(response, options.maxBytes ?? MAX_TOOL_BODY_BYTES, options.overMax ?? 'cut');
    return { status: response.status, headers: response.headers, text, truncated };
  } catch (error) {
    if (error instanceof AnswerTooLargeError)
      throw new ToolCallError(`${options.what}: ${error.message}`, false, { kind: 'too_large', cause: error });
    const denied = deniedIn(error);
    if (denied) throw new ToolCallError(`${options.what}: ${denied.message}`, false, { kind: 'denied', cause: error });
    if (options.signal?.aborted) throw new ToolCallError(`${options.what}: call aborted`, false, { kind: 'aborted', cause: error });
    if (deadline.aborted)
      throw new ToolCallError(`${options.what}: no answer within ${options.timeoutMs} ms`, true, { kind: 'timeout', cause: error });
    throw new ToolCallError(`${options.what}: unreachable (${describe(error)})`, true, { kind: 'network', cause: error });
  }
}

/** Reads at most `maxBytes` of the body and drops the rest without downloading it (or fails, past it). */
async function readCapped(response: Response, maxBytes: number, overMax: 'cut' | 'fail'): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  // A body that says it is larger is not read at all.
  if (overMax === 'fail' && Number(response.headers.get('content-length') ?? NaN) > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(maxBytes);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), truncated: false };
    const room = maxBytes - size;
    if (value.byteLength > room) {
      if (overMax === 'fail') {
        await reader.cancel().catch(() => undefined);
        throw new AnswerTooLargeError(maxBytes);
      }
      // stream: true keeps a character cut in two out of the text instead of a replacement mark
      text += decoder.decode(value.subarray(0, room), { stream: true });
      await reader.cancel().catch(() => undefined);
      return { text, truncated: true };
    }
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}

/** The body as JSON when it parses (always when `contentType` says JSON), else the text; empty is null. */
export function parseBody(text: string, contentType: string | null, options: { lenient: boolean }): unknown {
  if (!text) return null;
  const json = /[/+]json\b/i.test(contentType ?? '');
  if (!json && !options.lenient) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The refusal, thrown directly or as the cause of the fetch's own error (from inside the connection's lookup). */
export function deniedIn(error: unknown): EgressDeniedError | null {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof EgressDeniedError) return current;
  }
  return null;
}

/** The messages of an error and its causes, joined: `fetch failed: connect ECONNREFUSED 127.0.0.1:9`. */
export function describe(error: unknown): string {
  const parts: string[] = [];
  for (let current = error; current && parts.length < 3; current = (current as { cause?: unknown }).cause) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message) parts.push(message);
  }
  return parts.join(': ') || String(error);
}
