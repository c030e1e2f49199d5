// Payloads as Temporal's codec-server protocol carries them (the Web UI, `temporal --codec-endpoint`): JSON
// with `data` and each metadata value in base64.
import type { Payload } from '@temporalio/common';
import { DomainError, ErrorCode, isJsonObject } from '@app/domain';

export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function base64(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || value.length % 4 !== 0 || !BASE64.test(value))
    throw new DomainError(ErrorCode.ValidationFailed, `${field} must be base64`, { field });
  return new Uint8Array(Buffer.from(value, 'base64'));
}

function payloadOf(value: unknown, field: string): Payload {
  if (!isJsonObject(value))
    throw new DomainError(ErrorCode.ValidationFailed, `${field} must be an object with metadata and data`, { field });
  const { metadata = {}, data = '' } = value;
  if (!isJsonObject(metadata))
    throw new DomainError(ErrorCode.ValidationFailed, `${field}.metadata must be an object of base64 values`, {
      field: `${field}.metadata`,
    });
  return {
    metadata: Object.fromEntries(Object.entries(metadata).map(([key, item]) => [key, base64(item, `${field}.metadata.${key}`)])),
    data: base64(data, `${field}.data`),
  };
}

/** `{payloads: [...]}` as the codec-server protocol sends it; a coded 400 naming the first bad field. */
export function payloadsOf(body: unknown): Payload[] {
  if (!isJsonObject(body) || !Array.isArray(body.payloads))
    throw new DomainError(ErrorCode.ValidationFailed, 'The body must be {"payloads": [...]}', { field: 'payloads' });
  return body.payloads.map((payload, index) => payloadOf(payload, `payloads[${index}]`));
}

export function jsonPayload(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
