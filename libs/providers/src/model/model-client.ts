import type { ChatMessage, TokenUsage, ToolSpec } from '@app/contracts';

/** Ask for JSON: matching a schema (`name` as OpenAI wants it: letters, digits, _ and -), or any object. */
export type ResponseFormat = { type: 'json_schema'; name: string; schema: Record<string, unknown> } | { type: 'json_object' };

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  /** Offered as functions; an empty list is the same as none. */
  tools?: ToolSpec[];
  response_format?: ResponseFormat | null;
  temperature?: number;
  /** The most tokens the answer may have. */
  max_tokens?: number;
}

export interface ModelResponse {
  /** The assistant's message: content and/or tool calls, ids as the provider gave them. */
  message: ChatMessage;
  /** `stop`, `tool_calls`, `length`, `content_filter`... as the provider said; null if it did not. */
  finish_reason: string | null;
  usage: TokenUsage;
  /** The model that answered, as the provider names it. */
  model: string;
  duration_ms: number;
}

/**
 * A piece of an answer as the provider streams it: text, a tool call's head (its place among the answer's
 * tool calls, id and name), or a piece of that tool call's arguments.
 */
export type ModelDelta =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; index: number; id: string; name: string }
  | { kind: 'tool_args'; index: number; text: string };

/** How a call is made: its cancellation, and with `onDelta` a streamed answer whose pieces go there as they come. */
export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Asks the provider to stream; the response is the same answer, assembled from the stream. */
  onDelta?: (delta: ModelDelta) => void;
}

/** A token count as a provider reported it: anything but a positive number counts as none. */
export const tokenCount = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * One chat completion against a provider (OpenAI-compatible, or Anthropic's Messages API). Failures are ModelCallErrors that say
 * whether another attempt may help; retries belong to Temporal, not here.
 */
export abstract class ModelClient {
  /** Names the provider in metrics and traces. */
  abstract readonly provider: string;
  abstract complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}
