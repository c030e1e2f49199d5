// The statements a piece of work sends to MySQL, through TypeORM and through the one-trip pool: how many,
// how many commit (a COMMIT, or a write outside a transaction), and how many round trips carry a write.
// Each commit waits for the server's redo-log flush and each round trip for the network and both drivers:
// together most of what a step costs above bare Temporal (BENCHMARKS.md), so specs hold the counts where
// they matter.
import type { DataSource, QueryRunner } from 'typeorm';
import type { OneTripPool, Statement, StatementResult } from '@app/persistence';

export interface Statements {
  /** Every statement sent, BEGIN and COMMIT included. */
  sent: string[];
  commits: number;
  /** Round trips that carry a write (a one-trip transaction's statements travel together). */
  writeTrips: number;
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** Runs `work`, counting the statements every connection of `db` and of `oneTrip` sends meanwhile (run nothing else at the time). */
export async function countStatements<T>(
  db: DataSource,
  oneTrip: OneTripPool,
  work: () => Promise<T>,
): Promise<{ result: T; statements: Statements }> {
  const statements: Statements = { sent: [], commits: 0, writeTrips: 0 };
  const logger = db.logger;
  const logQuery = logger.logQuery;
  logger.logQuery = (query: string, parameters?: unknown[], runner?: QueryRunner) => {
    statements.sent.push(query);
    if (WRITE.test(query)) statements.writeTrips++;
    if (/^\s*COMMIT\b/i.test(query) || (WRITE.test(query) && !runner?.isTransactionActive)) statements.commits++;
    return logQuery.call(logger, query, parameters, runner);
  };
  const { transaction, transactionChecked } = oneTrip;
  // Own properties over the class's methods, deleted after.
  const sent = (sql: string[], trips: number) => {
    statements.sent.push('START TRANSACTION', ...sql, 'COMMIT');
    statements.commits++;
    statements.writeTrips += trips;
  };
  oneTrip.transaction = (batch) => (
    sent(
      batch.map((statement) => statement.sql),
      1,
    ),
    transaction.call(oneTrip, batch)
  );
  oneTrip.transactionChecked = <R>(batch: Statement[], check: (results: StatementResult[]) => R) => (
    sent(
      batch.map((statement) => statement.sql),
      2,
    ),
    transactionChecked.call(oneTrip, batch, check) as Promise<R>
  );
  try {
    return { result: await work(), statements };
  } finally {
    logger.logQuery = logQuery;
    for (const method of ['transaction', 'transactionChecked'] as const) Reflect.deleteProperty(oneTrip, method);
  }
}
