import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ToolCallRequest } from '@app/contracts';
import { invalidModelRequest, malformedResponse } from './model-call-error';
import {
  ModelClient,
  tokenCount,
  type ModelCallOptions,
  type ModelDelta,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
} from './model-client';
import { withDeadline } from './model-deadline';

/** What the client needs of a provider speaking the chat-completions protocol (`AppConfig.providers.openai` or `.openrouter`), with `models.timeoutMs`. */
export interface OpenAiSettings {
  baseUrl: string;
  /** Null: no Authorization header (a local server that takes no key). */
  apiKey: string | null;
  timeoutMs: number;
  /** Its name in metrics and traces (default `openai`): OpenRouter is the same protocol. */
  provider?: string;
}

/** The `openai` SDK with its own retries off: Temporal retries activities, with our classification. */
export class OpenAiModelClient extends ModelClient {
  readonly provider: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;

  constructor(settings: OpenAiSettings) {
    super();
    this.provider = settings.provider ?? 'openai';
    this.timeoutMs = settings.timeoutMs;
    // The SDK refuses to start without a key (it would read OPENAI_API_KEY itself): without one, it gets a
    // stand-in and its Authorization header is removed, so no made-up key reaches the provider.
    const keyless = settings.apiKey === null;
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey ?? 'none',
      ...(keyless ? { defaultHeaders: { Authorization: null } } : {}),
      maxRetries: 0,
      timeout: settings.timeoutMs + 1000,
    });
  }

  async complete(request: ModelRequest, { signal: callerSignal, onDelta }: ModelCallOptions = {}): Promise<ModelResponse> {
    const started = Date.now();
    const params = toSdkRequest(request);
    const answer = await withDeadline(this.timeoutMs, callerSignal, async (signal) =>
      fromSdkCompletion(
        onDelta ? await this.streamed(params, signal, onDelta) : await this.client.chat.completions.create(params, { signal }),
        request.model,
      ),
    );
    return { ...answer, duration_ms: Date.now() - started };
  }

  /** The completion assembled from a stream (usage in its last chunk), each piece handed to `onDelta` as it comes. */
  private async streamed(
    params: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal,
    onDelta: (delta: ModelDelta) => void,
  ): Promise<ChatCompletion> {
    const stream = await this.client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    const assembly = new CompletionAssembly();
    for await (const chunk of stream) assembly.add(chunk, onDelta);
    return assembly.completion();
  }
}

/** A streamed completion put back together: content, tool calls by index, finish reason, usage, model. */
class CompletionAssembly {
  private id = '';
  private model = '';
  private content: string | null = null;
  private readonly toolCalls: { id: string; name: string; arguments: string }[] = [];
  private finish: ChatCompletion['choices'][number]['finish_reason'] | null = null;
  private usage: ChatCompletion['usage'];
  private answered = false;

  add(chunk: ChatCompletionChunk, onDelta: (delta: ModelDelta) => void): void {
    this.id ||= chunk.id;
    this.model ||= chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    this.answered = true;
    if (choice.finish_reason) this.finish = choice.finish_reason;
    const { content, tool_calls } = choice.delta ?? {};
    if (typeof content === 'string' && content) {
      this.content = (this.content ?? '') + content;
      onDelta({ kind: 'text', text: content });
    }
    for (const call of tool_calls ?? []) {
      const index = call.index;
      if (!Number.isInteger(index) || index < 0 || index > this.toolCalls.length) throw malformedResponse('a tool call delta out of order');
      let known = this.toolCalls[index];
      if (!known) {
        known = this.toolCalls[index] = { id: call.id ?? '', name: call.function?.name ?? '', arguments: '' };
        onDelta({ kind: 'tool_call', index, id: known.id, name: known.name });
      } else {
        if (call.id) known.id = call.id;
        if (call.function?.name) known.name += call.function.name;
      }
      const piece = call.function?.arguments;
      if (piece) {
        known.arguments += piece;
        onDelta({ kind: 'tool_args', index, text: piece });
      }
    }
  }

  completion(): ChatCompletion {
    if (!this.answered) throw malformedResponse('the stream ended without a choice');
    return {
      id: this.id,
      object: 'chat.completion',
      created: 0,
      model: this.model,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: this.finish as ChatCompletion['choices'][number]['finish_reason'],
          message: {
            role: 'assistant',
            refusal: null,
            content: this.content,
            ...(this.toolCalls.length
              ? {
                  tool_calls: this.toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function' as const,
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

function toSdkRequest(request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
  const tools: ChatCompletionTool[] = (request.tools ?? []).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  return {
    model: request.model,
    messages: request.messages.map(toSdkMessage),
    ...(tools.length ? { tools } : {}),
    ...(request.response_format ? { response_format: toSdkFormat(request.response_format) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
  };
}

function toSdkMessage(message: ChatMessage, index: number): ChatCompletionMessageParam {
  const name = message.name ? { name: message.name } : {};
  switch (message.role) {
    case 'tool':
      if (!message.tool_call_id) throw invalidModelRequest(`messages[${index}] is a tool message without tool_call_id`);
      return { role: 'tool', content: message.content ?? '', tool_call_id: message.tool_call_id };
    case 'assistant':
      if (message.tool_calls?.length) {
        return { role: 'assistant', content: message.content, tool_calls: message.tool_calls.map(toSdkToolCall), ...name };
      }
      return { role: 'assistant', content: message.content ?? '', ...name };
    case 'system':
    case 'user':
      return { role: message.role, content: message.content ?? '', ...name };
    default:
      throw invalidModelRequest(`messages[${index}] has an unknown role ${JSON.stringify((message as { role: unknown }).role)}`);
  }
}

function toSdkToolCall(call: ToolCallRequest) {
  return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
}

function toSdkFormat(format: ResponseFormat): NonNullable<ChatCompletionCreateParamsNonStreaming['response_format']> {
  if (format.type === 'json_object') return { type: 'json_object' };
  // Not strict: strict mode requires every property listed as required and no additional properties,
  // which users' schemas rarely say. We validate the answer against the schema ourselves.
  return { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: false } };
}

/** The assistant message, finish reason, usage and model of a completion; anything else is malformed. */
function fromSdkCompletion(completion: ChatCompletion, requestedModel: string): Omit<ModelResponse, 'duration_ms'> {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  const message = choice?.message;
  if (!message || typeof message !== 'object') throw malformedResponse('no choice with a message');
  if (message.content !== null && message.content !== undefined && typeof message.content !== 'string')
    throw malformedResponse('message content is not text');
  if (message.tool_calls !== undefined && message.tool_calls !== null && !Array.isArray(message.tool_calls))
    throw malformedResponse('tool_calls is not a list');
  const toolCalls: ToolCallRequest[] = (message.tool_calls ?? []).flatMap((call) => {
    if (call?.type !== 'function') return []; // custom (non-function) tools are never offered
    if (typeof call.id !== 'string' || typeof call.function?.name !== 'string') throw malformedResponse('a tool call without id or name');
    return [
      { id: call.id, name: call.function.name, arguments: typeof call.function.arguments === 'string' ? call.function.arguments : '' },
    ];
  });
  const prompt = tokenCount(completion.usage?.prompt_tokens);
  const answer = tokenCount(completion.usage?.completion_tokens);
  const cached = tokenCount(completion.usage?.prompt_tokens_details?.cached_tokens);
  return {
    message: { role: 'assistant', content: message.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    finish_reason: choice?.finish_reason ?? null,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: answer,
      total_tokens: tokenCount(completion.usage?.total_tokens) || prompt + answer,
      ...(cached ? { cached_tokens: cached } : {}),
    },
    model: typeof completion.model === 'string' && completion.model ? completion.model : requestedModel,
  };
}
