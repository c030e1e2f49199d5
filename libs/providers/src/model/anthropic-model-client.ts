import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { answerToolOf, fromAnthropicMessage, toAnthropicRequest } from './anthropic-messages';
import { ModelClient, type ModelCallOptions, type ModelDelta, type ModelRequest, type ModelResponse } from './model-client';
import { withDeadline } from './model-deadline';

export interface AnthropicSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** Sent when the request names no max_tokens: the Messages API requires one. */
  defaultMaxTokens: number;
}

/**
 * Anthropic's Messages API through its own SDK, behind the same seam as the OpenAI-compatible providers:
 * SDK retries off (Temporal retries, a 529 "overloaded" included, with its retry-after), failures
 * classified by the same table.
 */
export class AnthropicModelClient extends ModelClient {
  readonly provider = 'anthropic';
  private readonly client: Anthropic;

  constructor(private readonly settings: AnthropicSettings) {
    super();
    // Our model-call span covers the call (gen_ai.* attributes); the SDK's own tracing would add spans and
    // send trace headers to the provider.
    this.client = new Anthropic({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey,
      maxRetries: 0,
      timeout: settings.timeoutMs + 1000,
      openTelemetry: false,
    });
  }

  async complete(request: ModelRequest, { signal: callerSignal, onDelta }: ModelCallOptions = {}): Promise<ModelResponse> {
    const started = Date.now();
    const params = toAnthropicRequest(request, this.settings.defaultMaxTokens);
    const answer = await withDeadline(this.settings.timeoutMs, callerSignal, async (signal) =>
      fromAnthropicMessage(
        onDelta ? await this.streamed(params, request, signal, onDelta) : await this.client.messages.create(params, { signal }),
        request,
      ),
    );
    return { ...answer, duration_ms: Date.now() - started };
  }

  /** The message from the streaming Messages API (the SDK assembles it), each piece handed to `onDelta` as it comes. */
  private async streamed(
    params: MessageCreateParamsNonStreaming,
    request: ModelRequest,
    signal: AbortSignal,
    onDelta: (delta: ModelDelta) => void,
  ): Promise<Message> {
    const stream = this.client.messages.stream(params, { signal });
    stream.on('streamEvent', deltasOf(answerToolOf(request.response_format)?.tool.name ?? null, onDelta));
    return stream.finalMessage();
  }
}

/**
 * Our pieces of Anthropic's stream events. The answer tool of a structured step is the answer: its input
 * streams as text, as a chat-completions JSON answer does; other tool_use blocks are tool calls, numbered
 * in their order.
 */
function deltasOf(answerTool: string | null, onDelta: (delta: ModelDelta) => void): (event: MessageStreamEvent) => void {
  const blocks = new Map<number, { answer: true } | { answer: false; index: number }>();
  return (event) => {
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      const { id, name } = event.content_block;
      if (name === answerTool) return void blocks.set(event.index, { answer: true });
      const index = [...blocks.values()].filter((block) => !block.answer).length;
      blocks.set(event.index, { answer: false, index });
      onDelta({ kind: 'tool_call', index, id, name });
    } else if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') onDelta({ kind: 'text', text: event.delta.text });
      else if (event.delta.type === 'input_json_delta' && event.delta.partial_json) {
        const block = blocks.get(event.index);
        if (block?.answer) onDelta({ kind: 'text', text: event.delta.partial_json });
        else if (block) onDelta({ kind: 'tool_args', index: block.index, text: event.delta.partial_json });
      }
    }
  };
}
