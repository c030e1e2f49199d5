import { ToolCallError } from './tool-transport';

const MAX_BODY = 256 * 1024;

export interface FetchedBody {
  status: number;
  body: unknown;
  truncated: boolean;
}

/** fetch with a timeout and a caller's abort signal; network failures and timeouts are retryable. */
export async function fetchWithDeadline(url: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal): Promise<Response> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    return await fetch(url, { ...init, signal: combined });
  } catch (error) {
    if (signal?.aborted) throw new ToolCallError('tool call aborted', false);
    if (deadline.aborted) throw new ToolCallError(`tool call timed out after ${timeoutMs} ms`, true);
    throw new ToolCallError(`tool endpoint unreachable: ${(error as Error).message}`, true);
  }
}

/** The body as JSON when it parses, else as text; cut at 256 KiB. */
export async function readBody(response: Response): Promise<FetchedBody> {
  const text = await response.text();
  const truncated = text.length > MAX_BODY;
  const kept = truncated ? text.slice(0, MAX_BODY) : text;
  let body: unknown = kept;
  try {
    body = kept ? JSON.parse(kept) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, truncated };
}
