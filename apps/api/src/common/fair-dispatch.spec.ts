import type { IncomingMessage, ServerResponse } from 'node:http';
import { DISPATCHED_PER_TURN, FairDispatch } from './fair-dispatch';

const requestFrom = (address: string, name: string) =>
  ({ socket: { remoteAddress: address }, destroyed: false, name }) as unknown as IncomingMessage & { name: string };
const response = {} as ServerResponse;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe(FairDispatch.name, () => {
  it("starts another address's request within a turn of its arrival, however many one address has waiting", async () => {
    const started: string[] = [];
    const sut = new FairDispatch((request) => started.push((request as IncomingMessage & { name: string }).name));

    for (let i = 0; i < 100; i++) sut.take(requestFrom('10.0.0.1', `storm-${i}`), response);
    sut.take(requestFrom('10.0.0.2', 'probe'), response);
    // The first turn's requests start at once, as they arrive.
    expect(started).toHaveLength(DISPATCHED_PER_TURN);
    expect(started).not.toContain('probe');

    await nextTurn();
    expect(started.indexOf('probe')).toBe(DISPATCHED_PER_TURN + 1);
    while (started.length < 101) await nextTurn();
    // One address's requests keep their order.
    expect(started.filter((name) => name.startsWith('storm'))).toEqual(Array.from({ length: 100 }, (_, i) => `storm-${i}`));
  });

  it('starts a request at once when nothing waits, and never one whose client has gone', async () => {
    const started: string[] = [];
    const sut = new FairDispatch((request) => started.push((request as IncomingMessage & { name: string }).name));
    sut.take(requestFrom('10.0.0.1', 'alone'), response);
    expect(started).toEqual(['alone']);

    await nextTurn();
    for (let i = 0; i < DISPATCHED_PER_TURN; i++) sut.take(requestFrom('10.0.0.1', `a-${i}`), response);
    const gone = requestFrom('10.0.0.3', 'gone');
    sut.take(gone, response);
    (gone as { destroyed: boolean }).destroyed = true;
    await nextTurn();
    await nextTurn();
    expect(started).not.toContain('gone');
    expect(started).toHaveLength(1 + DISPATCHED_PER_TURN);
  });
});
