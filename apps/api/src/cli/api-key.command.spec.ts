import { createHash } from 'node:crypto';
import { ApiKeyRepository, type ApiKeyRecord } from '@app/persistence';
import { ApiKeyService } from '../auth/api-key.service';
import { runApiKeyCommand, UsageError } from './api-key.command';

type StoredKey = ApiKeyRecord & { key_hash: string };

/** Keeps keys in memory the way the table does: the hash and the prefix, never the secret. */
class InMemoryApiKeyRepository extends ApiKeyRepository {
  readonly rows: StoredKey[] = [];
  private clock = 0;

  async insert(key: { uuid: string; key_hash: string; key_prefix: string; user_id: string; name: string }): Promise<void> {
    if (this.rows.some((row) => row.key_hash === key.key_hash)) throw new Error('duplicate key_hash');
    this.rows.push({ ...key, created_at: new Date(++this.clock), revoked_at: null });
  }

  async findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.public(this.rows.find((row) => row.key_hash === keyHash && !row.revoked_at)) ?? null;
  }

  async list(userId?: string): Promise<ApiKeyRecord[]> {
    return this.rows.filter((row) => !userId || row.user_id === userId).map((row) => this.public(row)!);
  }

  async count(): Promise<number> {
    return this.rows.length;
  }

  async userIds(): Promise<string[]> {
    return [...new Set(this.rows.map((row) => row.user_id))];
  }

  async revoke(uuidOrPrefix: string): Promise<number> {
    const hits = this.rows.filter((row) => !row.revoked_at && (row.uuid === uuidOrPrefix || row.key_prefix === uuidOrPrefix));
    for (const row of hits) row.revoked_at = new Date(++this.clock);
    return hits.length;
  }

  private public(row: StoredKey | undefined): ApiKeyRecord | undefined {
    if (!row) return undefined;
    const { key_hash: _hash, ...record } = row;
    return record;
  }
}

function setUp() {
  const repository = new InMemoryApiKeyRepository();
  const sut = new ApiKeyService(repository);
  const lines: string[] = [];
  const run = (...argv: string[]) => runApiKeyCommand(sut, argv, (line) => lines.push(line));
  return { repository, sut, lines, run };
}

describe(ApiKeyService.name, () => {
  it('hands out sk_ keys once and stores only their sha256 and a short prefix', async () => {
    const { repository, sut } = setUp();
    const { key, record } = await sut.create('alice', 'laptop');
    expect(key).toMatch(/^sk_[\w-]{32}$/);
    expect(record).toMatchObject({ user_id: 'alice', name: 'laptop', key_prefix: key.slice(0, 10), revoked_at: null });
    expect(repository.rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(repository.rows)).not.toContain(key);
  });

  it('authenticates a live key as its user, and nothing else', async () => {
    const { sut } = setUp();
    const { key, record } = await sut.create('alice', 'laptop');
    expect(await sut.authenticate(key)).toEqual({ userId: 'alice', keyId: record.uuid });
    expect(await sut.authenticate(`${key}x`)).toBeNull();
    await sut.revoke(record.uuid);
    expect(await sut.authenticate(key)).toBeNull();
  });

  it('makes a development key only while there is no key at all', async () => {
    const { sut } = setUp();
    const first = await sut.ensureDevKey();
    expect(first).toMatch(/^sk_/);
    expect(await sut.authenticate(first!)).toMatchObject({ userId: 'dev' });
    expect(await sut.ensureDevKey()).toBeNull();
  });
});

describe(runApiKeyCommand.name, () => {
  it('create prints the new key once, list shows prefixes only', async () => {
    const { run, lines } = setUp();
    await run('create', '--user', 'alice', '--name', 'ci');
    const key = lines[1];
    expect(lines[0]).toMatch(/^created key [0-9a-f-]{36} for user alice/);
    lines.length = 0;
    await run('list');
    expect(lines).toEqual([expect.stringMatching(new RegExp(`${key.slice(0, 10)}…  user=alice  name=ci  active$`))]);
    expect(lines.join('\n')).not.toContain(key);
  });

  it('list filters by user; revoke takes a uuid or the shown prefix', async () => {
    const { run, lines, sut } = setUp();
    const a = await sut.create('alice', 'a');
    const b = await sut.create('bob', 'b');
    await run('list', '--user', 'bob');
    expect(lines).toEqual([expect.stringContaining('user=bob')]);
    await run('revoke', a.record.uuid);
    await run('revoke', b.record.key_prefix);
    expect(lines.slice(1)).toEqual(['revoked 1 key(s)', 'revoked 1 key(s)']);
    expect(await sut.authenticate(a.key)).toBeNull();
    expect(await sut.authenticate(b.key)).toBeNull();
    await expect(run('revoke', a.record.uuid)).rejects.toThrow(`no active key matches ${a.record.uuid}`);
  });

  it('ensure-dev-key prints a key on an empty table and says one exists otherwise', async () => {
    const { run, lines, repository } = setUp();
    await run('ensure-dev-key');
    expect(lines[1]).toMatch(/^sk_/);
    await run('ensure-dev-key');
    expect(lines[2]).toMatch(/exist already/);
    expect(repository.rows).toHaveLength(1);
  });

  it('create refuses a user id that differs from an existing one only in case or accents, and one padded with spaces', async () => {
    const { run, repository } = setUp();
    await run('create', '--user', 'Alice');
    await run('create', '--user', 'rené');
    await expect(run('create', '--user', 'alice')).rejects.toThrow(/differs from the existing user "Alice" only in case/);
    await expect(run('create', '--user', 'rene')).rejects.toThrow(/existing user "rené"/);
    await expect(run('create', '--user', 'bob ')).rejects.toThrow(/neither starts nor ends with a space/);
    await run('create', '--user', 'Alice', '--name', 'second key');
    expect(repository.rows.map((row) => row.user_id)).toEqual(['Alice', 'rené', 'Alice']);
  });

  it.each([[[]], [['create']], [['revoke']], [['rotate']], [['list', '--bogus']]])('refuses %p with the usage', async (argv) => {
    const { run, repository } = setUp();
    await expect(run(...argv)).rejects.toThrow(UsageError);
    expect(repository.rows).toEqual([]);
  });
});
