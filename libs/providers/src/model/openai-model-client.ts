import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage } from '@app/contracts';
import { classifyHttpStatus, ModelCallError, retryAfterMs } from './model-call-error';
import { ModelClient, type ModelRequest, type ModelResponse, type ResponseFormat } from './model-client';

export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', content: message.content ?? '', tool_call_id: message.tool_call_id ?? '' };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length
          ? { tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
    default:
      return { role: message.role, content: message.content ?? '' };
  }
}

function toSdkFormat(format: ResponseFormat) {
  return format.type === 'json_object'
    ? { type: 'json_object' as const }
    : { type: 'json_schema' as const, json_schema: { name: format.name, schema: format.schema, strict: false } };
}

function toModelCallError(error: unknown): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (error instanceof APIUserAbortError) return new ModelCallError('aborted', 'model call aborted', false);
  if (error instanceof APIConnectionTimeoutError) return new ModelCallError('timeout', 'model call timed out', true);
  if (error instanceof APIConnectionError) return new ModelCallError('network', `model provider unreachable: ${error.message}`, true);
  if (error instanceof APIError && error.status !== undefined) {
    const message = (error.error as { message?: string } | undefined)?.message ?? error.message;
    return classifyHttpStatus(error.status, message, retryAfterMs(error.headers));
  }
  // A 200 whose body is not a completion (the SDK fails to parse it) is worth retrying.
  return new ModelCallError('malformed_response', `model provider answered malformed data: ${(error as Error)?.message ?? error}`, true);
}

/** The `openai` SDK with its own retries off: Temporal retries activities. */
export class OpenAiModelClient extends ModelClient {
  private readonly client: OpenAI;

  constructor(settings: OpenAiSettings) {
    super();
    this.client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs });
  }

  async complete(request: ModelRequest, options: { signal?: AbortSignal } = {}): Promise<ModelResponse> {
    const started = Date.now();
    const tools: ChatCompletionTool[] | undefined = request.tools?.length
      ? request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }))
      : undefined;
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages.map(toSdkMessage),
          ...(tools ? { tools } : {}),
          ...(request.response_format ? { response_format: toSdkFormat(request.response_format) } : {}),
        },
        { signal: options.signal },
      );
      const choice = completion.choices?.[0];
      if (!choice?.message) throw new ModelCallError('malformed_response', 'model provider answered without a choice', true);
      const toolCalls = (choice.message.tool_calls ?? []).flatMap((call) =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      );
      return {
        message: { role: 'assistant', content: choice.message.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: choice.finish_reason ?? null,
        usage: {
          prompt_tokens: completion.usage?.prompt_tokens ?? 0,
          completion_tokens: completion.usage?.completion_tokens ?? 0,
          total_tokens: completion.usage?.total_tokens ?? 0,
        },
        model: completion.model ?? request.model,
        duration_ms: Date.now() - started,
      };
    } catch (error) {
      throw toModelCallError(error);
    }
  }
}
