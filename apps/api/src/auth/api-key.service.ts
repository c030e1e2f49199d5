import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { assertUserIdDistinct, assertUserIdWellFormed } from '@app/domain';
import { ApiKeyRepository, type ApiKeyRecord } from '@app/persistence';

export interface AuthenticatedUser {
  userId: string;
  keyId: string;
}

const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Every key `create` has made: sk_ and 24 random bytes in base64url. Anything else is refused without a lookup. */
const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{32}$/;

/** Keys are `sk_<random>`, shown once; only their sha256 is stored. */
@Injectable()
export class ApiKeyService {
  constructor(private readonly keys: ApiKeyRepository) {}

  /** Refuses a user id that is malformed or that differs from an existing user's only in case, accents or width. */
  async create(userId: string, name: string): Promise<{ key: string; record: ApiKeyRecord }> {
    assertUserIdWellFormed(userId);
    assertUserIdDistinct(userId, await this.keys.userIds());
    const key = `sk_${randomBytes(24).toString('base64url')}`;
    const uuid = randomUUID();
    await this.keys.insert({ uuid, key_hash: hash(key), key_prefix: key.slice(0, 10), user_id: userId, name });
    const record = (await this.keys.list(userId)).find((k) => k.uuid === uuid)!;
    return { key, record };
  }

  /** Null for an unknown or revoked key; one that cannot be a key costs no MySQL round trip (a storm of guesses). */
  async authenticate(key: string): Promise<AuthenticatedUser | null> {
    if (!KEY_SHAPE.test(key)) return null;
    const record = await this.keys.findActiveByHash(hash(key));
    return record ? { userId: record.user_id, keyId: record.uuid } : null;
  }

  list(userId?: string): Promise<ApiKeyRecord[]> {
    return this.keys.list(userId);
  }

  revoke(uuidOrPrefix: string): Promise<number> {
    return this.keys.revoke(uuidOrPrefix);
  }

  /** A first key for user `dev` on an empty database, so `npm start` is usable at once. */
  async ensureDevKey(): Promise<string | null> {
    if ((await this.keys.count()) > 0) return null;
    return (await this.create('dev', 'development')).key;
  }
}
