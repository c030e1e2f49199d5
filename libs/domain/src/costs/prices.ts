// What a model call costs: a price table per `provider:model` (US dollars per million tokens) and the cost of
// a call's usage at it. A model the table does not price costs null, never a guessed figure.

/** US dollars per million tokens; `cached_input` is what input served from the provider's prompt cache costs. */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input: number;
}

/** Prices by `provider:model`. */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

/** The tokens a call used: cached ones are part of the prompt's. */
export interface PricedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

/** Calls no provider serves (the dry-run model) cost nothing. */
const FREE_PROVIDERS = new Set(['dry-run']);

/** A dated release (`-20250929`, `-2024-08-06`) is priced as its model when the table does not name it. */
const RELEASE_DATE = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The price of `model` at `provider`: by its exact name, else its name without the release date; null when unpriced. */
export function priceOf(table: PriceTable, provider: string, model: string): ModelPrice | null {
  if (FREE_PROVIDERS.has(provider)) return { input: 0, output: 0, cached_input: 0 };
  return table.get(`${provider}:${model}`) ?? table.get(`${provider}:${model.replace(RELEASE_DATE, '')}`) ?? null;
}

/** Dollars to 9 decimals, as the audit stores them: sums in SQL then add up exactly. */
const dollars = (value: number): number => Math.round(value * 1e9) / 1e9;

/** What `usage` costs at `price`, in dollars; null when the model has no price. */
export function costOf(price: ModelPrice | null, usage: PricedUsage): number | null {
  if (!price) return null;
  const cached = Math.min(usage.cached_tokens ?? 0, usage.prompt_tokens);
  const fresh = usage.prompt_tokens - cached;
  return dollars((fresh * price.input + cached * price.cached_input + usage.completion_tokens * price.output) / 1e6);
}

/** The most a call can cost: all of its prompt estimate uncached, and `max_tokens` of answer. */
export function worstCaseCost(price: ModelPrice | null, promptTokens: number, maxTokens: number): number | null {
  return costOf(price, { prompt_tokens: promptTokens, completion_tokens: maxTokens });
}

/** The largest price a table entry may name (dollars per million tokens): a typo of a few zeros is refused. */
const MAX_PRICE = 10_000;

/**
 * The operator's price file: `{"provider:model": {"input": 2.5, "output": 10, "cached_input": 1.25}}`
 * (`cached_input` defaults to `input`). Throws naming the first bad entry.
 */
export function parsePriceTable(json: unknown): Map<string, ModelPrice> {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('the price file must be a JSON object of "provider:model" keys');
  const table = new Map<string, ModelPrice>();
  for (const [key, entry] of Object.entries(json)) {
    if (!/^[a-z0-9-]+:.+$/.test(key)) throw new Error(`"${key}" must be "provider:model"`);
    const { input, output, cached_input = input, ...rest } = (entry ?? {}) as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length) throw new Error(`"${key}": unknown field ${extra[0]} (input, output, cached_input)`);
    for (const [field, value] of Object.entries({ input, output, cached_input }))
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE)
        throw new Error(`"${key}".${field} must be dollars per million tokens, 0 to ${MAX_PRICE}`);
    table.set(key, { input: input as number, output: output as number, cached_input: cached_input as number });
  }
  return table;
}
