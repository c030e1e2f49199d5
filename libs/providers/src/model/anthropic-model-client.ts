import Anthropic from '@anthropic-ai/sdk';
import { fromAnthropicMessage, toAnthropicRequest } from './anthropic-messages';
import { ModelClient, type ModelRequest, type ModelResponse } from './model-client';
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

  async complete(request: ModelRequest, options: { signal?: AbortSignal } = {}): Promise<ModelResponse> {
    const started = Date.now();
    const params = toAnthropicRequest(request, this.settings.defaultMaxTokens);
    const answer = await withDeadline(this.settings.timeoutMs, options.signal, async (signal) =>
      fromAnthropicMessage(await this.client.messages.create(params, { signal }), request),
    );
    return { ...answer, duration_ms: Date.now() - started };
  }
}
