// Temporal payloads encrypted with the keyring (AES-256-GCM), so prompts, triggers, answers and tool
// arguments are not readable in Temporal's database, its Web UI or a history export. Each encrypted payload
// names its key (rotation) and the workflow it belongs to, in plain metadata that is also bound to the
// ciphertext as authenticated data: the codec endpoint decides by it whose payload it is, and a payload
// relabelled with another workflow id does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import type { Keyring } from './keyring';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const WORKFLOW_ID_METADATA = 'stepwise-workflow-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class PayloadCipherError extends Error {}

const text = (value: Uint8Array | null | undefined): string | null => (value ? Buffer.from(value).toString('utf8') : null);

/** Encrypted by this codec (anything else passes through decode untouched: histories from before it). */
export const isEncryptedPayload = (payload: Payload): boolean => text(payload.metadata?.encoding) === ENCRYPTED_ENCODING;

/** The workflow an encrypted payload belongs to; null when it was encrypted without one. */
export const payloadWorkflowId = (payload: Payload): string | null => text(payload.metadata?.[WORKFLOW_ID_METADATA]) || null;

/** The key an encrypted payload was sealed with. */
export const payloadKeyId = (payload: Payload): string | null => text(payload.metadata?.[KEY_ID_METADATA]);

const authenticatedData = (workflowId: string | null) => Buffer.from(`stepwise-payload:v1:${workflowId ?? ''}`, 'utf8');

/** The original payload as one buffer: its metadata as JSON (values base64) behind a 4-byte length, then its data. */
function serialize(payload: Payload): Buffer {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );
  const head = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, Buffer.from(payload.data ?? new Uint8Array())]);
}

function deserialize(plain: Buffer): Payload {
  const headLength = plain.readUInt32BE(0);
  const metadata = JSON.parse(plain.subarray(4, 4 + headLength).toString('utf8')) as Record<string, string>;
  return {
    metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, new Uint8Array(Buffer.from(value, 'base64'))])),
    data: new Uint8Array(plain.subarray(4 + headLength)),
  };
}

/**
 * Temporal's PayloadCodec over the keyring: the first key encrypts, any key decrypts. The serialization
 * context (which Temporal gives every payload it encodes for a workflow or its activities) names the
 * workflow; a payload encoded without one carries no workflow id.
 */
export class PayloadCipher implements PayloadCodec {
  constructor(private readonly keyring: Keyring) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const workflowId = context?.workflowId ?? null;
    return payloads.map((payload) => (isEncryptedPayload(payload) ? payload : this.seal(payload, workflowId)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncryptedPayload(payload) ? this.open(payload) : payload));
  }

  seal(payload: Payload, workflowId: string | null): Payload {
    const { id, key } = this.keyring.active;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(authenticatedData(workflowId));
    const sealed = Buffer.concat([iv, cipher.update(serialize(payload)), cipher.final(), cipher.getAuthTag()]);
    const metadata: Record<string, Uint8Array> = { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(id) };
    if (workflowId) metadata[WORKFLOW_ID_METADATA] = Buffer.from(workflowId);
    return { metadata, data: new Uint8Array(sealed) };
  }

  /** Throws PayloadCipherError naming the key when it is not configured, or the data was altered. */
  open(payload: Payload): Payload {
    const keyId = payloadKeyId(payload) ?? '';
    const entry = this.keyring.find(keyId);
    if (!entry)
      throw new PayloadCipherError(
        `a Temporal payload was encrypted with key "${keyId}", which is not among the configured ENCRYPTION_KEYS`,
      );
    const data = Buffer.from(payload.data ?? new Uint8Array());
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, data.subarray(0, IV_BYTES));
      decipher.setAAD(authenticatedData(payloadWorkflowId(payload)));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return deserialize(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
    } catch {
      throw new PayloadCipherError(`a Temporal payload encrypted with key "${keyId}" does not decrypt: wrong key or altered data`);
    }
  }
}
