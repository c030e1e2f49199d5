// The prices stepwise knows without a price file: list prices of common models in US dollars per million
// tokens (input, output, cached input), as the providers published them in 2025. An operator's file
// (MODEL_PRICES_FILE) adds models and overrides these; negotiated rates belong there.
import type { ModelPrice } from './prices';

const price = (input: number, output: number, cached_input: number): ModelPrice => ({ input, output, cached_input });

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai:gpt-5': price(1.25, 10, 0.125),
  'openai:gpt-5-mini': price(0.25, 2, 0.025),
  'openai:gpt-5-nano': price(0.05, 0.4, 0.005),
  'openai:gpt-4.1': price(2, 8, 0.5),
  'openai:gpt-4.1-mini': price(0.4, 1.6, 0.1),
  'openai:gpt-4.1-nano': price(0.1, 0.4, 0.025),
  'openai:gpt-4o': price(2.5, 10, 1.25),
  'openai:gpt-4o-mini': price(0.15, 0.6, 0.075),
  'openai:o3': price(2, 8, 0.5),
  'openai:o4-mini': price(1.1, 4.4, 0.275),
  'anthropic:claude-opus-4-1': price(15, 75, 1.5),
  'anthropic:claude-opus-4-0': price(15, 75, 1.5),
  'anthropic:claude-opus-4': price(15, 75, 1.5),
  'anthropic:claude-sonnet-4-5': price(3, 15, 0.3),
  'anthropic:claude-sonnet-4-0': price(3, 15, 0.3),
  'anthropic:claude-sonnet-4': price(3, 15, 0.3),
  'anthropic:claude-3-7-sonnet-latest': price(3, 15, 0.3),
  'anthropic:claude-haiku-4-5': price(1, 5, 0.1),
  'anthropic:claude-3-5-haiku-latest': price(0.8, 4, 0.08),
  'anthropic:claude-3-5-haiku': price(0.8, 4, 0.08),
  'openrouter:openai/gpt-4o': price(2.5, 10, 1.25),
  'openrouter:openai/gpt-4o-mini': price(0.15, 0.6, 0.075),
  'openrouter:anthropic/claude-sonnet-4.5': price(3, 15, 0.3),
};
