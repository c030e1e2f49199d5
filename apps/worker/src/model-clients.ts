import type { AppConfig } from '@app/config';
import { AnthropicModelClient, ModelClientRegistry, type ModelClients, OpenAiModelClient } from '@app/providers';

/** A client for openai, and for each other provider whose key is set. */
export function modelClientsOf({ model, providers, models }: Pick<AppConfig, 'model' | 'providers' | 'models'>): ModelClients {
  const { anthropic, openrouter } = providers;
  return new ModelClientRegistry({
    openai: new OpenAiModelClient(model),
    ...(anthropic ? { anthropic: new AnthropicModelClient({ ...anthropic, timeoutMs: model.timeoutMs, defaultMaxTokens: models.defaultMaxTokens }) } : {}),
    ...(openrouter ? { openrouter: new OpenAiModelClient({ ...openrouter, timeoutMs: model.timeoutMs, provider: 'openrouter' }) } : {}),
  });
}
