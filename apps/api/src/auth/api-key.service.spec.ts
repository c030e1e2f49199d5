import { ApiKeyRepository, type ApiKeyRecord } from '@app/persistence';
import { ApiKeyService } from './api-key.service';

/** Keys in memory by hash; records every lookup. */
class KeysInMemory extends ApiKeyRepository {
  readonly lookups: string[] = [];
  private readonly byHash = new Map<string, ApiKeyRecord>();

  async insert(key: { uuid: string; key_hash: string; key_prefix: string; user_id: string; name: string }): Promise<void> {
    this.byHash.set(key.key_hash, { ...key, created_at: new Date(), revoked_at: null });
  }
  async findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    this.lookups.push(keyHash);
    return this.byHash.get(keyHash) ?? null;
  }
  async list(): Promise<ApiKeyRecord[]> {
    return [...this.byHash.values()];
  }
  async count(): Promise<number> {
    return this.byHash.size;
  }
  async userIds(): Promise<string[]> {
    return [...this.byHash.values()].map((key) => key.user_id);
  }
  async revoke(): Promise<number> {
    throw new Error('not used here');
  }
}

describe(ApiKeyService.name, () => {
  it('authenticates a key it made, and looks up a well-formed unknown one', async () => {
    const keys = new KeysInMemory();
    const sut = new ApiKeyService(keys);
    const { key } = await sut.create('alice', 'laptop');

    await expect(sut.authenticate(key)).resolves.toMatchObject({ userId: 'alice' });
    await expect(sut.authenticate(`sk_${'A'.repeat(32)}`)).resolves.toBeNull();
    expect(keys.lookups).toHaveLength(2);
  });

  it('refuses what cannot be a key without a lookup: a storm of guesses costs no MySQL round trip', async () => {
    const keys = new KeysInMemory();
    const sut = new ApiKeyService(keys);
    const { key } = await sut.create('alice', 'laptop');

    for (const guess of [
      'sk_guess_1',
      `${key}x`,
      key.slice(0, -1),
      `sk_${'A'.repeat(31)}=`,
      key.replace('sk_', 'SK_'),
      `Bearer ${key}`,
      '',
    ]) {
      await expect(sut.authenticate(guess)).resolves.toBeNull();
    }
    expect(keys.lookups).toEqual([]);
  });
});
