import { ConfigError, loadConfig, modelPolicyOf, offeredProviders } from './app-config';

// A valid keyring: 32 zero bytes.
const env = (extra: Record<string, string> = {}) => ({ ENCRYPTION_KEYS: `k1:${Buffer.alloc(32).toString('base64')}`, ...extra });

describe('model provider settings', () => {
  it('offers openai alone when no other key is set', () => {
    const config = loadConfig(env());

    expect(config.providers).toEqual({
      default: 'openai',
      openai: { baseUrl: 'https://api.openai.com/v1', apiKey: null },
      anthropic: null,
      openrouter: null,
    });
    expect(offeredProviders(config)).toEqual(['openai']);
  });

  it('offers a provider once its key is set, at its default or given URL', () => {
    const config = loadConfig(
      env({
        OPENAI_BASE_URL: 'http://127.0.0.1:8/v1',
        ANTHROPIC_API_KEY: 'sk-ant',
        OPENROUTER_API_KEY: 'sk-or',
        OPENROUTER_BASE_URL: 'http://127.0.0.1:9/v1',
        DEFAULT_PROVIDER: 'anthropic',
        MODELS_ALLOWED: 'claude-sonnet-4-5, openai:gpt-4o-mini',
      }),
    );

    expect(config.providers).toEqual({
      default: 'anthropic',
      openai: { baseUrl: 'http://127.0.0.1:8/v1', apiKey: null },
      anthropic: { baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant' },
      openrouter: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-or' },
    });
    expect(modelPolicyOf(config)).toEqual({
      allowed: ['claude-sonnet-4-5', 'openai:gpt-4o-mini'],
      maxMaxTokens: 32_768,
      maxLoopConcurrency: 50,
      providers: { offered: ['openai', 'anthropic', 'openrouter'], default: 'anthropic' },
    });
  });

  it('stops on a default provider without its key, an unknown one, or a bad URL', () => {
    expect(() => loadConfig(env({ DEFAULT_PROVIDER: 'anthropic' }))).toThrow(
      new ConfigError('DEFAULT_PROVIDER is anthropic, but ANTHROPIC_API_KEY is not set'),
    );
    expect(() => loadConfig(env({ DEFAULT_PROVIDER: 'mistral' }))).toThrow(/DEFAULT_PROVIDER must be one of openai, anthropic, openrouter/);
    expect(() => loadConfig(env({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'not a url' }))).toThrow(/ANTHROPIC_BASE_URL must be a URL/);
  });
});
