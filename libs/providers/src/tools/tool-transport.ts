// The seam between the worker and the tools agents call: one transport per way of reaching a tool (HTTP
// endpoints, built-ins, MCP servers). A tool's `transport` names the one that calls it.
import type { McpConnection } from '@app/contracts';

/** A callable tool as the worker sees it, whatever reaches it. A persisted ToolRecord is one. */
export interface ToolDescriptor {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as offered to the model. */
  parameters: Record<string, unknown>;
  transport: 'http' | 'builtin' | (string & {});
  /** Where the `http` transport POSTs the arguments. */
  endpoint_url?: string | null;
  /** How long one call may take; each transport has a default. */
  timeout_ms?: number | null;
  /** The `mcp` transport: the server (secrets revealed) and the tool's name there. */
  mcp?: { connection: McpConnection; tool: string } | null;
  /** Calling it again changes nothing anywhere (a registered tool's flag; an MCP tool's readOnlyHint). */
  side_effect_free?: boolean;
}

export type ToolErrorKind =
  /** the tool answered 429 */
  | 'rate_limited'
  /** the tool answered 5xx */
  | 'server'
  /** no answer in time (or the tool answered 408) */
  | 'timeout'
  /** the tool could not be reached, or the connection broke */
  | 'network'
  /** the tool refused the call with a 4xx */
  | 'client_error'
  /** the call cannot work as asked: bad arguments, no endpoint, no such tool or transport */
  | 'invalid'
  /** the caller gave up (cancellation) */
  | 'aborted'
  /** the egress policy refused the address (EGRESS_DENIED): no connection was opened */
  | 'denied'
  /** the tool ran and reported an error of its own (an MCP result with isError): an answer for the model */
  | 'tool_error'
  /** the answer passed TOOL_ANSWER_MAX_BYTES (TOOL_ANSWER_TOO_LARGE): the read stopped there */
  | 'too_large';

export interface ToolCallErrorDetails {
  /** Defaults to `server` when retryable, `invalid` when not. */
  kind?: ToolErrorKind;
  /** The tool's HTTP status, when it answered. */
  status?: number;
  cause?: unknown;
}

/** A failed tool call. Retryable ones are for Temporal to retry; final ones go back to the model. */
export class ToolCallError extends Error {
  readonly kind: ToolErrorKind;
  readonly status?: number;

  constructor(
    message: string,
    readonly retryable: boolean,
    details: ToolCallErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ToolCallError';
    this.kind = details.kind ?? (retryable ? 'server' : 'invalid');
    if (details.status !== undefined) this.status = details.status;
  }
}

/** 408, 429 and 5xx are worth another attempt; other 4xx are final. */
export function toolErrorForStatus(status: number): { kind: ToolErrorKind; retryable: boolean } {
  if (status === 429) return { kind: 'rate_limited', retryable: true };
  if (status === 408) return { kind: 'timeout', retryable: true };
  if (status >= 500) return { kind: 'server', retryable: true };
  return { kind: 'client_error', retryable: false };
}

export interface ToolCallOptions {
  signal?: AbortSignal;
}

/**
 * One way of reaching tools. `call` resolves to the tool's output (parsed JSON, or text) and fails with a
 * ToolCallError.
 */
export abstract class ToolTransport {
  abstract readonly kind: string;
  abstract call(tool: ToolDescriptor, args: unknown, options: ToolCallOptions): Promise<unknown>;
}
