// A transaction the server rolled back did not happen, so it is safe to run again: that of a connection
// that died under it (a database restart or failover, a KILL, a network cut), and the loser of a deadlock
// (InnoDB picks one when, say, a run's start and another run's end lock the same rows in other orders).
// Such a write is retried, on a fresh connection from the pool, so that the request does not fail and the
// activity that made it does not, retried by Temporal, repeat the model or tool call it has just audited.
// So is one the server never began: a new connection refused because the server is at its max_connections
// (other processes sharing it); a failed end transaction would leave its call's row `running`, which the
// quarantine takes for a worker that died in the call.

/** Driver codes (mysql2) and server error numbers that mean the connection, not the statement, failed. */
const LOST_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
]);
const LOST_ERRNOS = new Set([
  1053, // ER_SERVER_SHUTDOWN
  1927, // MariaDB ER_CONNECTION_KILLED: "Connection was killed"
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  4031, // MySQL 8 ER_CLIENT_INTERACTION_TIMEOUT
]);
const CLOSED_STATE = /closed state|connection is closed|Connection lost/i;

/** The server refused a new connection: it holds max_connections already (ER_CON_COUNT_ERROR). */
const TOO_MANY_CONNECTIONS_ERRNO = 1040;

/** The server chose this transaction as a deadlock's victim and rolled it back whole. */
const DEADLOCK_ERRNO = 1213; // ER_LOCK_DEADLOCK

interface DriverError {
  code?: string;
  errno?: number;
  message?: string;
  fatal?: boolean;
}

/** The error as thrown and, when TypeORM wrapped it, mysql2's own beneath it. */
const layersOf = (error: unknown): DriverError[] =>
  [error, (error as { driverError?: unknown } | null)?.driverError].map((layer) => (layer ?? {}) as DriverError);

export function isLostConnection(error: unknown): boolean {
  return layersOf(error).some(
    ({ code, errno, message, fatal }) =>
      (code !== undefined && LOST_CODES.has(code)) ||
      (errno !== undefined && LOST_ERRNOS.has(errno)) ||
      (fatal === true && CLOSED_STATE.test(message ?? '')),
  );
}

export function isDeadlock(error: unknown): boolean {
  return layersOf(error).some(({ errno }) => errno === DEADLOCK_ERRNO);
}

/** An INSERT found its primary or unique key taken (ER_DUP_ENTRY). */
export function isDuplicateKey(error: unknown): boolean {
  return layersOf(error).some(({ code, errno }) => code === 'ER_DUP_ENTRY' || errno === 1062);
}

/** An INSERT named a parent row that is not there (ER_NO_REFERENCED_ROW_2): it went meanwhile. */
export function isMissingParent(error: unknown): boolean {
  return layersOf(error).some(({ code, errno }) => code === 'ER_NO_REFERENCED_ROW_2' || errno === 1452);
}

export function isConnectionRefused(error: unknown): boolean {
  return layersOf(error).some(({ code, errno }) => code === 'ER_CON_COUNT_ERROR' || errno === TOO_MANY_CONNECTIONS_ERRNO);
}

export const isRolledBack = (error: unknown): boolean => isLostConnection(error) || isDeadlock(error) || isConnectionRefused(error);

/** Runs `work` (a whole transaction), again (up to `attempts` times in all, after a short pause) while the server rolls it back. */
export async function retryingRolledBack<T>(work: () => Promise<T>, attempts = 3, pauseMs = 200): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRolledBack(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt));
    }
  }
}
