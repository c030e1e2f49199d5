// The one-trip pool against the real MySQL: a transaction's statements travel together and commit together,
// and one that fails part-way leaves nothing behind, not even on the connection the pool hands out next.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { affectedRows, createDataSource, OneTripPool, type Statement } from '@app/persistence';

describe(OneTripPool.name, () => {
  let db: DataSource;
  let sut: OneTripPool;

  beforeAll(async () => {
    db = await createDataSource(process.env.DATABASE_URL!).initialize();
    // One connection: what a failed transaction left on it would meet the next one.
    sut = OneTripPool.open(process.env.DATABASE_URL!, 1);
  });
  afterAll(() => Promise.all([db.destroy(), sut.close()]));

  const insert = (userId: string): Statement => ({
    sql: 'INSERT INTO user_quotas (user_id, runs_in_flight) VALUES (?, 0)',
    params: [userId],
  });
  const countOf = async (...userIds: string[]) =>
    Number((await db.query('SELECT COUNT(*) AS n FROM user_quotas WHERE user_id IN (?)', [userIds]))[0].n);

  it("commits every statement at once and gives back each one's result in order", async () => {
    const [a, b] = [randomUUID(), randomUUID()];

    const results = await sut.transaction([
      insert(a),
      insert(b),
      { sql: 'SELECT COUNT(*) AS n FROM user_quotas WHERE user_id IN (?, ?)', params: [a, b] },
    ]);

    expect(results.map((result) => (Array.isArray(result) ? Number(result[0].n) : affectedRows(result)))).toEqual([1, 1, 2]);
    expect(await countOf(a, b)).toBe(2);
  });

  it('writes nothing when a statement fails part-way, and the next transaction on the pool commits on its own', async () => {
    const [taken, fresh, next] = [randomUUID(), randomUUID(), randomUUID()];
    await db.query('INSERT INTO user_quotas (user_id, runs_in_flight) VALUES (?, 0)', [taken]);

    await expect(sut.transaction([insert(fresh), insert(taken)])).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' });
    await sut.transaction([insert(next)]);

    expect(await countOf(fresh)).toBe(0);
    expect(await countOf(next)).toBe(1);
  });

  it('commits a checked transaction once its check passes, and rolls it back, throwing what the check threw, when not', async () => {
    const [kept, refused] = [randomUUID(), randomUUID()];
    const refusal = new Error('refused');

    const value = await sut.transactionChecked([insert(kept)], (results) => affectedRows(results[0]));
    await expect(
      sut.transactionChecked([insert(refused)], () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);

    expect(value).toBe(1);
    expect([await countOf(kept), await countOf(refused)]).toEqual([1, 0]);
  });

  it("sends a transaction whose values pass one packet's limit statement by statement, and gives back every result", async () => {
    // Three 6 MiB values: 18 MiB in one packet would pass max_allowed_packet (16 MiB by default).
    const large = 'x'.repeat(6 * 1024 * 1024);
    const length: Statement = { sql: 'SELECT LENGTH(?) AS n', params: [large] };

    const results = await sut.transaction([length, length, length]);

    expect(results.map((rows) => Number((rows as { n: number }[])[0].n))).toEqual([large.length, large.length, large.length]);
  });
});
