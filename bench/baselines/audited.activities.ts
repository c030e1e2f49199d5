// The least an audit that keeps stepwise's promise can cost: every model call and tool call commits a
// `running` row before it goes out (so a lost attempt can be found) and its answer once it is back (so a
// completed call is found instead of repeated). Two single-statement commits a call on one narrow table of
// the bench's own: no step rows, no events, no messages. Wrapped around the bare activities, so the bare
// local workflows run unchanged on it.
import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from 'mysql2/promise';

const TABLE = 'bench_audit_floor';

export interface AuditFloor {
  wrap<A extends object>(activities: A): A;
  close(): Promise<void>;
}

export async function auditFloor(databaseUrl: string): Promise<AuditFloor> {
  const pool: Pool = createPool({ uri: databaseUrl, connectionLimit: 10 });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (id CHAR(36) PRIMARY KEY, kind VARCHAR(32) NOT NULL, status VARCHAR(16) NOT NULL, answer LONGTEXT NULL) ENGINE=InnoDB`,
  );
  const audited =
    <T>(kind: string, call: (...args: never[]) => Promise<T>) =>
    async (...args: never[]): Promise<T> => {
      const id = randomUUID();
      await pool.execute(`INSERT INTO ${TABLE} (id, kind, status) VALUES (?, ?, 'running')`, [id, kind]);
      const answer = await call(...args);
      await pool.execute(`UPDATE ${TABLE} SET status = 'completed', answer = ? WHERE id = ?`, [JSON.stringify(answer ?? null), id]);
      return answer;
    };
  return {
    wrap: (activities) =>
      Object.fromEntries(
        Object.entries(activities).map(([name, fn]) => [
          name,
          audited(name, (fn as (...args: never[]) => Promise<unknown>).bind(activities)),
        ]),
      ) as typeof activities,
    async close() {
      await pool.query(`DROP TABLE IF EXISTS ${TABLE}`);
      await pool.end();
    },
  };
}
