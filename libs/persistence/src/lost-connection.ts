// A statement whose connection died under it (a database restart or failover, a KILL, a network cut) did
// not happen: the server rolls back the open transaction of a connection it ends. Such a write is retried
// on a fresh connection from the pool, so that the activity that made it does not fail and, retried by
// Temporal, repeat the model or tool call it has just audited.

/** Driver codes (mysql2) and server error numbers that mean the connection, not the statement, failed. */
const LOST_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED', 'ER_CLIENT_INTERACTION_TIMEOUT']);
const LOST_ERRNOS = new Set([
  1053, // ER_SERVER_SHUTDOWN
  1927, // MariaDB ER_CONNECTION_KILLED: "Connection was killed"
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  4031, // MySQL 8 ER_CLIENT_INTERACTION_TIMEOUT
]);
const CLOSED_STATE = /closed state|connection is closed|Connection lost/i;

export function isLostConnection(error: unknown): boolean {
  const candidates = [error, (error as { driverError?: unknown })?.driverError];
  return candidates.some((candidate) => {
    const { code, errno, message, fatal } = (candidate ?? {}) as { code?: string; errno?: number; message?: string; fatal?: boolean };
    return (code !== undefined && LOST_CODES.has(code)) || (errno !== undefined && LOST_ERRNOS.has(errno)) || (fatal === true && CLOSED_STATE.test(message ?? ''));
  });
}

/** Runs `work`, again (up to `attempts` times in all, after a short pause) while it fails for a lost connection. */
export async function retryingLostConnection<T>(work: () => Promise<T>, attempts = 3, pauseMs = 200): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isLostConnection(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt));
    }
  }
}
