// What model calls cost and who may spend how much: the price table (the defaults, then the operator's
// file over them), the per-user spend limits, and whether metrics may carry a user label.
import { readFileSync } from 'node:fs';
import { DEFAULT_PRICES, parsePriceTable, USAGE_MAX_DAYS, type PriceTable } from '@app/domain';
import { ConfigError } from './config-error';

export interface CostSettings {
  /** US dollars per million tokens by `provider:model` (MODEL_PRICES_FILE over the defaults). */
  prices: PriceTable;
  /** The most one user's model calls may cost in a UTC day and a UTC month, in dollars (null: no limit). */
  userDailyLimit: number | null;
  userMonthlyLimit: number | null;
  /** The most days one GET /usage report covers (USAGE_MAX_DAYS): its reads grow with the calls in the range. */
  usageMaxDays: number;
  /** Token and cost counters labelled by user too (METRICS_USER_LABEL): one series per user, so off unless asked. */
  userLabel: boolean;
}

type Env = Record<string, string | undefined>;

function priceTable(env: Env): PriceTable {
  const path = env.MODEL_PRICES_FILE;
  const table = parsePriceTable(DEFAULT_PRICES);
  if (!path) return table;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`MODEL_PRICES_FILE (${path}) must be a readable JSON file: ${(error as Error).message}`);
  }
  try {
    for (const [key, price] of parsePriceTable(json)) table.set(key, price);
  } catch (error) {
    throw new ConfigError(`MODEL_PRICES_FILE (${path}): ${(error as Error).message}`);
  }
  return table;
}

function dollars(env: Env, key: string): number | null {
  const raw = env[key];
  if (raw === undefined || raw === '' || raw === 'off') return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${key} must be a positive amount of dollars or off, got "${raw}"`);
  return value;
}

/** A whole number of days, 1 to 3,660 (ten years). */
function days(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 3660)
    throw new ConfigError(`${key} must be a whole number of days from 1 to 3660, got "${raw}"`);
  return value;
}

export function costSettings(env: Env): CostSettings {
  const userLabel = env.METRICS_USER_LABEL ?? 'off';
  if (userLabel !== 'on' && userLabel !== 'off') throw new ConfigError(`METRICS_USER_LABEL must be one of on, off, got "${userLabel}"`);
  return {
    prices: priceTable(env),
    userDailyLimit: dollars(env, 'SPEND_LIMIT_DAILY_USD'),
    userMonthlyLimit: dollars(env, 'SPEND_LIMIT_MONTHLY_USD'),
    usageMaxDays: days(env, 'USAGE_MAX_DAYS', USAGE_MAX_DAYS),
    userLabel: userLabel === 'on',
  };
}
