// PROVIDER_LIMITS: what each provider's account allows, shared by every worker: `openai=60,anthropic=50:40000`
// is requests per minute, and after a colon tokens per minute (prompt estimate + max_tokens of each call).
import { MODEL_PROVIDERS, type ModelProvider } from '@app/contracts';
import { ConfigError } from './config-error';

export interface ProviderLimit {
  requestsPerMinute: number;
  tokensPerMinute: number | null;
}

export function providerLimits(raw: string | undefined, key = 'PROVIDER_LIMITS'): Map<ModelProvider, ProviderLimit> {
  const limits = new Map<ModelProvider, ProviderLimit>();
  for (const entry of (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d+)(?::(\d+))?$/.exec(entry);
    if (!match || !(MODEL_PROVIDERS as readonly string[]).includes(match[1]) || Number(match[2]) < 1 || (match[3] && Number(match[3]) < 1))
      throw new ConfigError(
        `${key} must be a comma-separated list of provider=requests_per_minute[:tokens_per_minute] (providers: ${MODEL_PROVIDERS.join(', ')}), got "${entry}"`,
      );
    limits.set(match[1] as ModelProvider, { requestsPerMinute: Number(match[2]), tokensPerMinute: match[3] ? Number(match[3]) : null });
  }
  return limits;
}
