// The one way stepwise opens Temporal clients and configures workers' payloads: every payload goes through
// the keyring's cipher, so no caller can forget it (the API, the worker, schedules, the reconciler, the
// summary starter, the bench and the specs all come here).
import { Client, type ClientInterceptors, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { PayloadCipher } from '@app/security';
import type { AppConfig } from './app-config';

type TemporalSettings = Pick<AppConfig, 'temporal' | 'security'>;

/** Payloads encrypted with ENCRYPTION_KEYS (search attributes stay plain: Temporal indexes them). */
export function temporalDataConverter(config: Pick<AppConfig, 'security'>): DataConverter {
  return { payloadCodecs: [new PayloadCipher(config.security.keyring)] };
}

/** A client on the configured namespace, with the data converter; close it with `client.connection.close()`. */
export async function connectTemporalClient(config: TemporalSettings, interceptors?: ClientInterceptors): Promise<Client> {
  const connection = await Connection.connect({ ...config.temporal.connection, address: config.temporal.address });
  return new Client({ connection, namespace: config.temporal.namespace, dataConverter: temporalDataConverter(config), interceptors });
}
