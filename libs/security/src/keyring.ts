// The keys that encrypt what stepwise keeps secret (Temporal payloads, secrets at rest). The first key
// encrypts; every key decrypts, so a key is rotated by putting a new one first and dropping the old one
// once nothing sealed with it is left.

export interface EncryptionKey {
  /** Written beside every sealed value, so the right key is found after a rotation. */
  id: string;
  /** 32 bytes: AES-256. */
  key: Buffer;
}

export class Keyring {
  private readonly byId: Map<string, EncryptionKey>;

  constructor(readonly keys: readonly EncryptionKey[]) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  /** The key new values are sealed with. */
  get active(): EncryptionKey {
    return this.keys[0];
  }

  find(id: string): EncryptionKey | undefined {
    return this.byId.get(id);
  }
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `id:base64key[,id:base64key...]`, each key 32 bytes (`openssl rand -base64 32`). Throws naming the
 * entry at fault; never echoes a key.
 */
export function parseKeyring(raw: string): Keyring {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('no key given: expected id:base64key[,id:base64key...]');
  const seen = new Set<string>();
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!KEY_ID.test(id)) throw new Error(`entry ${index + 1}: expected id:base64key with an id of 1-32 letters, digits, _ or -`);
    if (seen.has(id)) throw new Error(`entry ${index + 1}: key id "${id}" appears twice`);
    seen.add(id);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (key.length !== 32) throw new Error(`key "${id}": must be 32 bytes in base64 (openssl rand -base64 32), got ${key.length}`);
    return { id, key };
  });
  return new Keyring(keys);
}
