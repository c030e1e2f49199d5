// The statements a piece of work sends to MySQL, as TypeORM sends them: how many, and how many commit (a
// COMMIT, or a write outside a transaction). Each commit waits for the server's redo-log flush, which is
// most of what a step costs above bare Temporal (BENCHMARKS.md), so specs hold the count where it matters.
import type { DataSource, QueryRunner } from 'typeorm';

export interface Statements {
  /** Every statement sent, BEGIN and COMMIT included. */
  sent: string[];
  commits: number;
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** Runs `work`, counting the statements every connection of `db` sends meanwhile (run nothing else at the time). */
export async function countStatements<T>(db: DataSource, work: () => Promise<T>): Promise<{ result: T; statements: Statements }> {
  const statements: Statements = { sent: [], commits: 0 };
  const logger = db.logger;
  const logQuery = logger.logQuery;
  logger.logQuery = (query: string, parameters?: unknown[], runner?: QueryRunner) => {
    statements.sent.push(query);
    if (/^\s*COMMIT\b/i.test(query) || (WRITE.test(query) && !runner?.isTransactionActive)) statements.commits++;
    return logQuery.call(logger, query, parameters, runner);
  };
  try {
    return { result: await work(), statements };
  } finally {
    logger.logQuery = logQuery;
  }
}
