import { ConfigError } from './config-error';
import { providerLimits } from './provider-limits';

describe(providerLimits.name, () => {
  it('reads requests per minute, and tokens per minute after a colon', () => {
    expect(providerLimits('openai=60, anthropic=50:40000')).toEqual(
      new Map([
        ['openai', { requestsPerMinute: 60, tokensPerMinute: null }],
        ['anthropic', { requestsPerMinute: 50, tokensPerMinute: 40000 }],
      ]),
    );
    expect(providerLimits(undefined).size).toBe(0);
  });

  it.each(['openai', 'openai=0', 'mistral=10', 'openai=10:0', 'openai=1.5'])('stops the process on "%s", naming the setting', (raw) => {
    expect(() => providerLimits(raw)).toThrow(ConfigError);
    expect(() => providerLimits(raw)).toThrow('PROVIDER_LIMITS');
  });
});
