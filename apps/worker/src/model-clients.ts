import type { AppConfig } from '@app/config';
import { AnthropicModelClient, ModelClientRegistry, type ModelClients, OpenAiModelClient } from '@app/providers';

/** A client for openai, and for each other provider whose key is set. */
export function modelClientsOf({ providers, models }: Pick<AppConfig, 'providers' | 'models'>): ModelClients {
  const { openai, anthropic, openrouter } = providers;
  const { timeoutMs } = models;
  return new ModelClientRegistry({
    openai: new OpenAiModelClient({ ...openai, timeoutMs }),
    ...(anthropic ? { anthropic: new AnthropicModelClient({ ...anthropic, timeoutMs, defaultMaxTokens: models.defaultMaxTokens }) } : {}),
    ...(openrouter ? { openrouter: new OpenAiModelClient({ ...openrouter, timeoutMs, provider: 'openrouter' }) } : {}),
  });
}
