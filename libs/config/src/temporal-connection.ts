// How the API and the worker reach Temporal: Temporal's own environment configuration (TEMPORAL_API_KEY,
// TEMPORAL_TLS_*, TEMPORAL_PROFILE and its TOML file), so Temporal Cloud and mTLS clusters work; the
// address and namespace stay ours (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, which envconfig reads as well).
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export type TemporalConnectionOptions = Pick<NativeConnectionOptions, 'address' | 'tls' | 'apiKey' | 'metadata'>;

type Env = Record<string, string | undefined>;

/** Throws naming what is wrong (an unreadable certificate, a malformed profile). */
export function temporalConnectionOptions(address: string, env: Env = process.env): TemporalConnectionOptions {
  const defined = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const { connectionOptions } = loadClientConnectConfig({ overrideEnvVars: defined });
  const { tls, apiKey, metadata } = connectionOptions;
  return { address, ...(tls !== undefined ? { tls } : {}), ...(apiKey !== undefined ? { apiKey } : {}), ...(metadata ? { metadata } : {}) };
}
