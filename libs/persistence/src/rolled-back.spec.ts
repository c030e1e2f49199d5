import { isConnectionRefused, isDeadlock, isLostConnection, retryingRolledBack } from './rolled-back';

// The shapes mysql2 gives when the server KILLs a connection: during a statement, then on the next one.
const killedDuringStatement = Object.assign(new Error('Connection lost: The server closed the connection.'), {
  code: 'PROTOCOL_CONNECTION_LOST',
  fatal: true,
});
const usedAfterKill = Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true });
const deadlock = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
  code: 'ER_LOCK_DEADLOCK',
  errno: 1213,
});
// mysql2's error when the server is at max_connections as the pool opens a connection.
const tooMany = Object.assign(new Error('Too many connections'), { code: 'ER_CON_COUNT_ERROR', errno: 1040, fatal: true });
const duplicate = Object.assign(new Error("Duplicate entry 'x' for key 'PRIMARY'"), { code: 'ER_DUP_ENTRY', errno: 1062 });

describe(isLostConnection.name, () => {
  it('knows a dead connection, bare or wrapped by TypeORM', () => {
    expect(isLostConnection(killedDuringStatement)).toBe(true);
    expect(isLostConnection(usedAfterKill)).toBe(true);
    expect(isLostConnection({ message: 'Query failed', driverError: { errno: 1927 } })).toBe(true);
  });

  it('leaves the statement’s own errors alone', () => {
    expect(isLostConnection(duplicate)).toBe(false);
    expect(isLostConnection(new Error('boom'))).toBe(false);
    expect(isLostConnection(null)).toBe(false);
  });
});

describe(isDeadlock.name, () => {
  it('knows a deadlock victim, bare or wrapped by TypeORM, and nothing else', () => {
    expect(isDeadlock(deadlock)).toBe(true);
    expect(isDeadlock({ message: 'Query failed', driverError: deadlock })).toBe(true);
    expect(isDeadlock(duplicate)).toBe(false);
    expect(isDeadlock(killedDuringStatement)).toBe(false);
  });
});

describe(isConnectionRefused.name, () => {
  it('knows a connection the server refused at its max_connections, bare or wrapped, and nothing else', () => {
    expect(isConnectionRefused(tooMany)).toBe(true);
    expect(isConnectionRefused({ message: 'Query failed', driverError: tooMany })).toBe(true);
    expect(isConnectionRefused(duplicate)).toBe(false);
    expect(isConnectionRefused(killedDuringStatement)).toBe(false);
  });
});

describe(retryingRolledBack.name, () => {
  it('runs the work again when the server refused it a connection (it never began)', async () => {
    const outcomes = [tooMany, tooMany, 'done'];
    const work = jest.fn(async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    });
    await expect(retryingRolledBack(work, 3, 1)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(3);
  });

  it('runs the work again after a lost connection', async () => {
    const outcomes = [killedDuringStatement, 'done'];
    const work = jest.fn(async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    });
    await expect(retryingRolledBack(work, 3, 1)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('runs the whole work again after losing a deadlock', async () => {
    const outcomes = [deadlock, deadlock, 'done'];
    const work = jest.fn(async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    });
    await expect(retryingRolledBack(work, 3, 1)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(3);
  });

  it('gives up after its attempts, and never retries other errors', async () => {
    const lost = jest.fn(async () => Promise.reject(killedDuringStatement));
    await expect(retryingRolledBack(lost, 3, 1)).rejects.toBe(killedDuringStatement);
    expect(lost).toHaveBeenCalledTimes(3);
    const failing = jest.fn(async () => Promise.reject(duplicate));
    await expect(retryingRolledBack(failing, 3, 1)).rejects.toBe(duplicate);
    expect(failing).toHaveBeenCalledTimes(1);
  });
});
