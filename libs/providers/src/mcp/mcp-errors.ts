// MCP failures as ToolCallErrors: what another attempt may fix (the server unreachable, slow, answering
// 5xx or 429, the connection closed) is retryable; what it cannot (protocol errors, an unknown tool, a
// result that breaks the protocol's schema, an address the egress policy refuses, an answer past
// TOOL_ANSWER_MAX_BYTES) is final. What the server said is quoted shortened and scrubbed.
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorDetail } from '@app/contracts';
import { AnswerTooLargeError } from '../net/capped-body';
import { deniedIn, describe } from '../tools/http-fetch';
import { ToolCallError, toolErrorForStatus } from '../tools/tool-transport';

export function mcpCallError(error: unknown, what: string, signal?: AbortSignal): ToolCallError {
  if (error instanceof ToolCallError) return error;
  const message = toolErrorDetail((error as Error)?.message ?? String(error));
  const tooLarge = causeOf(error, AnswerTooLargeError);
  if (tooLarge) return new ToolCallError(`${what}: ${tooLarge.message}`, false, { kind: 'too_large', cause: error });
  const denied = deniedIn(error);
  if (denied) return new ToolCallError(`${what}: ${denied.message}`, false, { kind: 'denied', cause: error });
  if (signal?.aborted) return new ToolCallError(`${what}: call aborted`, false, { kind: 'aborted', cause: error });
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new ToolCallError(`${what}: ${message}`, true, { kind: 'timeout', cause: error });
    if (error.code === ErrorCode.ConnectionClosed) return new ToolCallError(`${what}: ${message}`, true, { kind: 'network', cause: error });
    return new ToolCallError(`${what}: ${message}`, false, { kind: 'invalid', cause: error });
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400) {
    const { kind, retryable } = toolErrorForStatus(error.code);
    return new ToolCallError(`${what}: ${message}`, retryable, { kind, status: error.code, cause: error });
  }
  if (isNetworkFailure(error))
    return new ToolCallError(`${what}: unreachable (${describe(error)})`, true, { kind: 'network', cause: error });
  return new ToolCallError(`${what}: ${message}`, false, { kind: 'invalid', cause: error });
}

/** The error, or one of its causes, of this class (the SDK may wrap what our fetch threw). */
function causeOf<T>(error: unknown, type: new (...args: never[]) => T): T | null {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof type) return current;
  }
  return null;
}

/** fetch's own failures (refused, reset, DNS), a stdio server that exited, a connection the SDK saw close. */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof TypeError && /fetch failed|terminated/i.test(error.message)) return true;
  if (error instanceof StreamableHTTPError) return true;
  const code = (error as { code?: unknown })?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code;
  return (
    (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|UND_ERR_\w+)$/.test(code)) ||
    /not connected|connection closed/i.test((error as Error)?.message ?? '')
  );
}
