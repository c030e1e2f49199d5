import { ApplicationFailure, type Context } from '@temporalio/activity';
import { shortened, SPEND_LIMIT_REACHED_FAILURE } from '@app/contracts';
import { DomainError, ErrorCode } from '@app/domain';
import { scrubbed } from '@app/observability';
import { ModelCallError, ToolCallError } from '@app/providers';
import { StepError } from '../execution/step-error';

/** How long a call refused at its run's max_cost waits before it is tried again (the step's attempts count it). */
export const RUN_BUDGET_RETRY_MS = 30_000;

/** What a failed statement says in Temporal and on the run: its detail (SQL, values, the server's message) is for the worker's log only. */
export const DATABASE_FAILURE_MESSAGE = "DATABASE_ERROR: a database statement failed; the worker's log has its detail";

type ActivityLog = Pick<Context['log'], 'warn'>;

/**
 * The one place worker errors become Temporal failures: retryable or not, with a type to read in the UI.
 * Every message is scrubbed of what looks like a secret, for it is kept in Temporal's history, on the
 * run and in the logs; a database error becomes DATABASE_FAILURE_MESSAGE, its detail logged (scrubbed) to `log`.
 */
export function toApplicationFailure(error: unknown, log?: ActivityLog): unknown {
  if (error instanceof ModelCallError) {
    return ApplicationFailure.create({
      message: scrubbed(error.message),
      type: `Model_${error.kind}`,
      nonRetryable: !error.retryable,
      ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
    });
  }
  if (error instanceof ToolCallError)
    return ApplicationFailure.create({ message: scrubbed(error.message), type: `Tool_${error.kind}`, nonRetryable: !error.retryable });
  if (error instanceof StepError) return ApplicationFailure.nonRetryable(scrubbed(error.message), error.type);
  // A run's call at a spent day or month: the run waits for the reset or a re-check signal (spend-wait.ts in the
  // engine), then calls again, so neither the step's attempts nor a worker slot are spent on the wait.
  if (error instanceof DomainError && error.code === ErrorCode.SpendLimitReached && typeof error.details.run_uuid === 'string')
    return ApplicationFailure.create({
      message: error.message,
      type: SPEND_LIMIT_REACHED_FAILURE,
      nonRetryable: true,
      details: [{ resets_at: error.details.resets_at }],
    });
  // Another caller's (no run: an evaluation's judge): tried again at the reset (the activity's attempts count it).
  if (error instanceof DomainError && error.code === ErrorCode.SpendLimitReached)
    return ApplicationFailure.create({
      message: error.message,
      type: error.code,
      nonRetryable: false,
      nextRetryDelay: Number(error.details.retry_after_seconds) * 1000,
    });
  // A run at its max_cost: tried again a little later, once its calls in flight settled or the run's budget was raised.
  if (error instanceof DomainError && error.code === ErrorCode.RunBudgetReached)
    return ApplicationFailure.create({
      message: error.message,
      type: error.code,
      nonRetryable: false,
      nextRetryDelay: RUN_BUDGET_RETRY_MS,
    });
  if (error instanceof DomainError) return ApplicationFailure.nonRetryable(scrubbed(error.message), error.code);
  // Unexpected, so Temporal retries it: the database away, a statement refused, a bug.
  const database = databaseErrorIn(error);
  if (database) {
    log?.warn('a database statement failed', { database_error: databaseDetail(database) });
    return ApplicationFailure.create({ message: DATABASE_FAILURE_MESSAGE, type: 'DatabaseError', nonRetryable: false });
  }
  if (error instanceof Error) {
    const message = scrubbed(error.message);
    if (message !== error.message) return ApplicationFailure.create({ message, type: error.name, nonRetryable: false });
  }
  return error;
}

interface DriverErrorLike {
  name?: string;
  message?: string;
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  sqlMessage?: unknown;
  sql?: unknown;
  query?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/** TypeORM's QueryFailedError, or mysql2's error (a statement refused, the connection lost), or one as a cause. */
function databaseErrorIn(error: unknown): DriverErrorLike | null {
  for (
    let current = error as DriverErrorLike | undefined, depth = 0;
    current && typeof current === 'object' && depth < 4;
    current = current.cause as DriverErrorLike, depth++
  ) {
    const code = typeof current.code === 'string' ? current.code : '';
    if (
      current.name === 'QueryFailedError' ||
      current.driverError ||
      typeof current.sqlState === 'string' ||
      typeof current.sqlMessage === 'string' ||
      /^(ER_|PROTOCOL_)/.test(code)
    )
      return current;
  }
  return null;
}

/**
 * What the log gets: the code, the server's message and the statement, scrubbed and cut short. TypeORM's
 * statement has placeholders; mysql2's has the values written in, so only its first words are kept.
 */
function databaseDetail(error: DriverErrorLike): Record<string, unknown> {
  const driver = (error.driverError ?? error) as DriverErrorLike;
  const statement =
    typeof error.query === 'string' ? shortened(error.query, 500) : typeof driver.sql === 'string' ? shortened(driver.sql, 60) : undefined;
  return {
    name: error.name,
    code: driver.code ?? error.code,
    errno: driver.errno,
    sql_state: driver.sqlState,
    message: shortened(scrubbed(String(driver.sqlMessage ?? driver.message ?? error.message ?? '')), 500),
    ...(statement ? { statement: scrubbed(statement) } : {}),
  };
}
