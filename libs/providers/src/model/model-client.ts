import type { ChatMessage, TokenUsage, ToolSpec } from '@app/contracts';

export type ResponseFormat = { type: 'json_schema'; name: string; schema: Record<string, unknown> } | { type: 'json_object' };

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  response_format?: ResponseFormat | null;
}

export interface ModelResponse {
  message: ChatMessage;
  finish_reason: string | null;
  usage: TokenUsage;
  model: string;
  duration_ms: number;
}

/** One chat completion against an OpenAI-compatible provider; retries belong to Temporal, not here. */
export abstract class ModelClient {
  abstract complete(request: ModelRequest, options?: { signal?: AbortSignal }): Promise<ModelResponse>;
}
