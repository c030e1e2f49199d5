import { isLostConnection, retryingLostConnection } from './lost-connection';

// The shapes mysql2 gives when the server KILLs a connection: during a statement, then on the next one.
const killedDuringStatement = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
const usedAfterKill = Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true });
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

describe(retryingLostConnection.name, () => {
  it('runs the work again after a lost connection', async () => {
    const outcomes = [killedDuringStatement, 'done'];
    const work = jest.fn(async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    });
    await expect(retryingLostConnection(work, 3, 1)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('gives up after its attempts, and never retries other errors', async () => {
    const lost = jest.fn(async () => Promise.reject(killedDuringStatement));
    await expect(retryingLostConnection(lost, 3, 1)).rejects.toBe(killedDuringStatement);
    expect(lost).toHaveBeenCalledTimes(3);
    const failing = jest.fn(async () => Promise.reject(duplicate));
    await expect(retryingLostConnection(failing, 3, 1)).rejects.toBe(duplicate);
    expect(failing).toHaveBeenCalledTimes(1);
  });
});
