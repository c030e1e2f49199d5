import { DEFAULT_PRICES } from './default-prices';
import { costOf, parsePriceTable, priceOf, worstCaseCost } from './prices';

describe('prices', () => {
  const table = parsePriceTable({
    'openai:gpt-4o': { input: 2.5, output: 10, cached_input: 1.25 },
    'anthropic:claude-x': { input: 3, output: 15 },
  });

  it('prices a call by its input, cached input and output tokens', () => {
    // 1,000 prompt tokens of which 400 cached, 500 answer tokens.
    const cost = costOf(priceOf(table, 'openai', 'gpt-4o'), { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 400 });
    expect(cost).toBe((600 * 2.5 + 400 * 1.25 + 500 * 10) / 1e6);
  });

  it('gives an unpriced model a null cost, never a figure', () => {
    expect(priceOf(table, 'openai', 'llama3')).toBeNull();
    expect(costOf(priceOf(table, 'openrouter', 'gpt-4o'), { prompt_tokens: 10, completion_tokens: 10 })).toBeNull();
  });

  it('prices a dated release as its model, and a dry run at nothing', () => {
    expect(priceOf(table, 'anthropic', 'claude-x-20250929')).toEqual({ input: 3, output: 15, cached_input: 3 });
    expect(priceOf(table, 'openai', 'gpt-4o-2024-08-06')?.input).toBe(2.5);
    expect(costOf(priceOf(table, 'dry-run', 'anything'), { prompt_tokens: 100, completion_tokens: 100 })).toBe(0);
  });

  it('reckons the worst case as every prompt token uncached and max_tokens of answer', () => {
    expect(worstCaseCost(priceOf(table, 'openai', 'gpt-4o'), 2000, 1000)).toBe((2000 * 2.5 + 1000 * 10) / 1e6);
    expect(worstCaseCost(null, 2000, 1000)).toBeNull();
  });

  it('rounds to nano-dollars so that sums in SQL add up exactly', () => {
    expect(costOf({ input: 0.05, output: 0.4, cached_input: 0.005 }, { prompt_tokens: 7, completion_tokens: 3 })).toBe(0.00000155);
  });

  it.each([
    [[], 'JSON object'],
    [{ 'gpt-4o': { input: 1, output: 1 } }, 'provider:model'],
    [{ 'openai:x': { input: -1, output: 1 } }, '"openai:x".input'],
    [{ 'openai:x': { input: 1 } }, '"openai:x".output'],
    [{ 'openai:x': { input: 1, output: 1, currency: 'EUR' } }, 'unknown field currency'],
    [{ 'openai:x': { input: 1, output: 1e9 } }, '"openai:x".output'],
  ])('refuses a bad price file naming the entry: %j', (json, message) => {
    expect(() => parsePriceTable(json)).toThrow(message);
  });

  it('ships a default list that parses', () => {
    expect(parsePriceTable(DEFAULT_PRICES).size).toBe(Object.keys(DEFAULT_PRICES).length);
  });
});
