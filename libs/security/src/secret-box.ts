// Secrets at rest (webhook secrets, MCP server headers): AES-256-GCM with the keyring's active key, stored
// as one string that names its key, so reading still works after a rotation.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring';

const PREFIX = 'sealed:v1';

export class SecretBoxError extends Error {}

export class SecretBox {
  constructor(private readonly keyring: Keyring) {}

  /** `sealed:v1:<key id>:<iv>:<tag>:<ciphertext>`, the last three base64url. */
  seal(plain: string): string {
    const { id, key } = this.keyring.active;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const text = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [PREFIX, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), text.toString('base64url')].join(':');
  }

  open(sealed: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 6 || `${parts[0]}:${parts[1]}` !== PREFIX) throw new SecretBoxError('not a sealed value');
    const [, , id, iv, tag, text] = parts;
    const entry = this.keyring.find(id);
    if (!entry) throw new SecretBoxError(`sealed with key "${id}", which is not among the configured ENCRYPTION_KEYS`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`a value sealed with key "${id}" does not decrypt: wrong key or altered data`);
    }
  }

  /** A secret as stored: sealed, or plain when it was written before secrets were sealed (still accepted). */
  reveal(stored: string): string {
    return SecretBox.isSealed(stored) ? this.open(stored) : stored;
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}:`);
  }
}
