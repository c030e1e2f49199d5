import type { StepDefinition } from '@app/contracts';
import { allowedModelOf, modelPolicyIssues, type ModelPolicy } from './model-policy';

const llm = (fields: Record<string, unknown> = {}) =>
  ({ uuid: 'u', name: 'n', description: '', type: 'custom_llm', model: 'gpt-4o-mini', system_prompt: 'p', ...fields }) as StepDefinition;
const policy = (fields: Partial<ModelPolicy> = {}): ModelPolicy => ({
  allowed: [],
  maxMaxTokens: 1000,
  providers: { offered: ['openai', 'anthropic'], default: 'openai' },
  ...fields,
});

describe(allowedModelOf.name, () => {
  it("reads provider:model, and a bare model (colons included) as the default provider's", () => {
    expect(allowedModelOf('anthropic:claude-sonnet-4-5', 'openai')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(allowedModelOf('openrouter:meta-llama/llama-3-8b:free', 'openai')).toEqual({
      provider: 'openrouter',
      model: 'meta-llama/llama-3-8b:free',
    });
    expect(allowedModelOf('gpt-4o-mini', 'anthropic')).toEqual({ provider: 'anthropic', model: 'gpt-4o-mini' });
    expect(allowedModelOf('llama3:8b', 'openai')).toEqual({ provider: 'openai', model: 'llama3:8b' });
  });
});

describe(modelPolicyIssues.name, () => {
  it('accepts any model of an offered provider when nothing is listed', () => {
    expect(modelPolicyIssues([llm(), llm({ provider: 'anthropic', model: 'claude-x' })], policy())).toEqual([]);
  });

  it('refuses a for_each asking more items at once than LOOP_MAX_CONCURRENCY', () => {
    const forEach = (max_concurrency: number) => llm({ loop: { type: 'for_each', input_path: '<<trigger_output>>', max_concurrency } });
    expect(modelPolicyIssues([forEach(10)], policy({ maxLoopConcurrency: 10 }))).toEqual([]);
    expect(modelPolicyIssues([forEach(11)], policy({ maxLoopConcurrency: 10 }))).toEqual([
      {
        code: 'INVALID_LOOP',
        field: 'steps[0].loop.max_concurrency',
        message: 'steps[0].loop.max_concurrency must be at most 10 here (LOOP_MAX_CONCURRENCY)',
      },
    ]);
  });

  it('refuses a provider that is not configured, naming the field', () => {
    expect(modelPolicyIssues([llm({ provider: 'openrouter' })], policy(), 'x.')).toEqual([
      {
        code: 'PROVIDER_NOT_CONFIGURED',
        field: 'x.steps[0].provider',
        message: 'x.steps[0].provider openrouter is not configured here: use one of openai, anthropic',
      },
    ]);
  });

  it('applies the list per provider: bare entries for the default provider, provider:model and provider:* for others', () => {
    const listed = policy({ allowed: ['gpt-4o-mini', 'anthropic:claude-sonnet-4-5'] });
    const wildcard = policy({ allowed: ['anthropic:*'] });

    expect(modelPolicyIssues([llm(), llm({ provider: 'anthropic', model: 'claude-sonnet-4-5' })], listed)).toEqual([]);
    expect(modelPolicyIssues([llm({ provider: 'anthropic', model: 'gpt-4o-mini' })], listed)).toEqual([
      {
        code: 'MODEL_NOT_ALLOWED',
        field: 'steps[0].model',
        message: 'steps[0].model gpt-4o-mini is not allowed here: use one of claude-sonnet-4-5',
      },
    ]);
    expect(modelPolicyIssues([llm({ provider: 'anthropic', model: 'anything' })], wildcard)).toEqual([]);
    expect(modelPolicyIssues([llm()], wildcard)).toEqual([
      expect.objectContaining({ code: 'MODEL_NOT_ALLOWED', message: expect.stringContaining('no model of openai is allowed') }),
    ]);
  });

  it('resolves a step without provider to the default one', () => {
    const anthropicFirst = policy({
      allowed: ['claude-sonnet-4-5'],
      providers: { offered: ['openai', 'anthropic'], default: 'anthropic' },
    });

    expect(modelPolicyIssues([llm({ model: 'claude-sonnet-4-5' })], anthropicFirst)).toEqual([]);
    expect(modelPolicyIssues([llm({ provider: 'openai', model: 'claude-sonnet-4-5' })], anthropicFirst)).toHaveLength(1);
  });

  it('still caps max_tokens', () => {
    expect(modelPolicyIssues([llm({ max_tokens: 2000 })], policy())).toEqual([
      { code: 'VALIDATION_FAILED', field: 'steps[0].max_tokens', message: 'steps[0].max_tokens must be at most 1000' },
    ]);
  });
});
