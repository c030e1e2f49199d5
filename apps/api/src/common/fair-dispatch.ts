// One client's burst must not hold every other client's requests behind it. Node hands the API each parsed
// request in the order the connections delivered them, so 300 connections opened at once by one address (a storm
// of guessed keys) used to run 300 requests through Express before anyone else's: /health/live waited 290-520 ms
// behind them even when they were health probes themselves. Here each request waits in its address's queue, and
// the queues are served in turns, DISPATCHED_PER_TURN requests a turn, yielding to I/O between turns: another
// address's request starts within a turn or two of arriving, however many one address has queued. Nothing is
// refused and nothing is held once started (a stream, a long poll): only the start of the work is ordered.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** About 15 ms of Express work on a loaded machine: what a request of another address may wait for. */
export const DISPATCHED_PER_TURN = 16;

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export class FairDispatch {
  private readonly queues = new Map<string, [IncomingMessage, ServerResponse][]>();
  private scheduled = false;
  private dispatchedThisTurn = 0;

  constructor(private readonly listener: Listener) {}

  /** Makes `server` hand its requests to its current request listeners through a FairDispatch. */
  static install(server: Server): FairDispatch {
    const listeners = server.listeners('request') as Listener[];
    server.removeAllListeners('request');
    const fair = new FairDispatch((request, response) => listeners.forEach((listener) => listener.call(server, request, response)));
    server.on('request', fair.take);
    return fair;
  }

  readonly take = (request: IncomingMessage, response: ServerResponse): void => {
    // Nothing waiting and this turn not spent: at once, as without it.
    if (this.queues.size === 0 && this.dispatchedThisTurn < DISPATCHED_PER_TURN) {
      this.dispatch(request, response);
      return;
    }
    const address = request.socket.remoteAddress ?? '';
    const queue = this.queues.get(address);
    if (queue) queue.push([request, response]);
    else this.queues.set(address, [[request, response]]);
    this.schedule();
  };

  private dispatch(request: IncomingMessage, response: ServerResponse): void {
    this.dispatchedThisTurn++;
    this.schedule();
    this.listener(request, response);
  }

  /** The next turn (counting afresh) comes after the I/O that arrived meanwhile: setImmediate runs after the poll phase. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  /** One request of each address in turn, until the turn is spent or nothing waits. */
  private readonly turn = (): void => {
    this.scheduled = false;
    this.dispatchedThisTurn = 0;
    while (this.queues.size && this.dispatchedThisTurn < DISPATCHED_PER_TURN) {
      for (const [address, queue] of this.queues) {
        const [request, response] = queue.shift()!;
        if (!queue.length) this.queues.delete(address);
        // A client gone while it waited: its request is not started.
        if (!request.destroyed) this.dispatch(request, response);
        if (this.dispatchedThisTurn >= DISPATCHED_PER_TURN) break;
      }
    }
    if (this.queues.size) this.schedule();
  };
}
