// Transactions sent whole, in one round trip: START TRANSACTION, their statements and COMMIT in one packet.
// A step's start and end and a run's start and end are such transactions; each statement of theirs would
// otherwise be a round trip (about 0.25 ms here) plus the driver's work on both sides, and they are most of
// what a step costs above bare Temporal (BENCHMARKS.md). The pool is their own, opened with
// multipleStatements; the shared pool stays without it, so a statement built by mistake from input can never
// stack a second one there. Their statements are fixed SQL, entity-statements.ts's or TypeORM's own builders,
// values as placeholders.
import { createPool, type Pool, type PoolConnection, type ResultSetHeader } from 'mysql2/promise';
import { SESSION_IN_UTC } from './data-source';
import { retryingRolledBack } from './rolled-back';

/** One statement of a transaction: SQL with `?` placeholders, and their values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** What a statement of the transaction gave back: its header (affected rows), or a SELECT's rows. */
export type StatementResult = ResultSetHeader | Record<string, unknown>[];

export class OneTripPool {
  private constructor(private readonly pool: Pool) {}

  /** Opens connections as they are needed, up to `size`, each in UTC (as the shared pool's, see data-source.ts). */
  static open(databaseUrl: string, size: number): OneTripPool {
    const pool = createPool({
      uri: databaseUrl,
      connectionLimit: size,
      multipleStatements: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      supportBigNumbers: true,
      bigNumberStrings: false,
    });
    pool.pool.on('connection', (connection) => connection.query(SESSION_IN_UTC));
    return new OneTripPool(pool);
  }

  /**
   * Runs the statements as one transaction in one round trip; their results, in order. A transaction the
   * server rolled back (a lost connection, a deadlock) runs again whole, as runTransaction's do.
   */
  transaction(statements: Statement[]): Promise<StatementResult[]> {
    return retryingRolledBack(() => this.on((connection) => sendOn(connection, statements, true)));
  }

  /**
   * The same, in two round trips: the statements, then COMMIT once `check` has passed their results, or
   * ROLLBACK when it throws (what it throws is then thrown here). For a transaction that writes only on a
   * condition its statements find out.
   */
  transactionChecked<T>(statements: Statement[], check: (results: StatementResult[]) => T): Promise<T> {
    return retryingRolledBack(async () => {
      const checked = await this.on(async (connection) => {
        const results = await sendOn(connection, statements, false);
        let outcome: { value: T } | { refusal: unknown };
        try {
          outcome = { value: check(results) };
        } catch (refusal) {
          outcome = { refusal };
        }
        await connection.query('refusal' in outcome ? 'ROLLBACK' : 'COMMIT');
        return outcome;
      });
      if ('refusal' in checked) throw checked.refusal;
      return checked.value;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * `work` on a connection of the pool, which takes it back after. A statement that failed stops its batch
   * with the transaction open: the connection is then dropped, which rolls back whatever ran.
   */
  private async on<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await this.pool.getConnection();
    try {
      const result = await work(connection);
      connection.release();
      return result;
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }
}

/**
 * Values past this many characters in all make a batch go statement by statement, still one transaction:
 * one packet must stay under the server's max_allowed_packet (16 MiB by default; a character may take 4
 * bytes, and escaping adds more), and for values that large the round trips are a small part of the cost.
 */
const ONE_PACKET_CHARS = 1024 * 1024;

async function sendOn(connection: PoolConnection, statements: Statement[], commit: boolean): Promise<StatementResult[]> {
  const all = [{ sql: 'START TRANSACTION', params: [] }, ...statements, ...(commit ? [{ sql: 'COMMIT', params: [] }] : [])];
  let results: StatementResult[] = [];
  if (charactersIn(statements) > ONE_PACKET_CHARS) {
    for (const statement of all) results.push((await connection.query(statement.sql, statement.params))[0] as StatementResult);
  } else {
    results = (
      await connection.query(
        all.map((statement) => statement.sql).join(';\n'),
        all.flatMap((statement) => statement.params),
      )
    )[0] as unknown as StatementResult[];
  }
  return results.slice(1, 1 + statements.length);
}

const charactersIn = (statements: Statement[]) =>
  statements.reduce(
    (sum, statement) =>
      sum +
      statement.sql.length +
      statement.params.reduce<number>((size, value) => size + (typeof value === 'string' || Buffer.isBuffer(value) ? value.length : 8), 0),
    0,
  );

/** How many rows a statement of the transaction changed (or found). */
export const affectedRows = (result: StatementResult | undefined): number => (result && 'affectedRows' in result ? result.affectedRows : 0);

/** A TypeORM query builder's statement, to send in a one-trip transaction instead of executing it. */
export function statementOf(builder: { getQueryAndParameters(): [string, unknown[]] }): Statement {
  const [sql, params] = builder.getQueryAndParameters();
  return { sql, params };
}
