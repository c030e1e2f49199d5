import { ModelCallError } from '@app/providers';
import { modelClientsOf } from './model-clients';

describe(modelClientsOf.name, () => {
  const settings = (
    providers: Partial<{ anthropic: { baseUrl: string; apiKey: string }; openrouter: { baseUrl: string; apiKey: string } }> = {},
  ) => ({
    providers: {
      default: 'openai' as const,
      openai: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' },
      anthropic: null,
      openrouter: null,
      ...providers,
    },
    models: { allowed: [], defaultMaxTokens: 100, maxMaxTokens: 1000, timeoutMs: 1000, stream: true },
  });

  it('has a client for each provider whose key is set, named for metrics and traces', () => {
    const sut = modelClientsOf(
      settings({
        anthropic: { baseUrl: 'http://127.0.0.1:2', apiKey: 'a' },
        openrouter: { baseUrl: 'http://127.0.0.1:3/v1', apiKey: 'o' },
      }),
    );

    expect(['openai', 'anthropic', 'openrouter'].map((name) => sut.forProvider(name as 'openai').provider)).toEqual([
      'openai',
      'anthropic',
      'openrouter',
    ]);
  });

  it('fails a call to a provider without settings for good', () => {
    const sut = modelClientsOf(settings());

    expect(() => sut.forProvider('anthropic')).toThrow(ModelCallError);
    expect(() => sut.forProvider('anthropic')).toThrow(
      expect.objectContaining({ kind: 'bad_request', retryable: false, message: expect.stringContaining('anthropic is not configured') }),
    );
  });
});
