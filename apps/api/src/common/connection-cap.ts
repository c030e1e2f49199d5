// What one client address can cost the event loop before any request is parsed. FairDispatch orders the start of
// requests, but every connection is still accepted, given an HTTP parser, read and parsed on the one event loop:
// a storm of 300 connections opened at once by one address cost about 560 ms of CPU there, and a probe from
// another address waited behind it. Past API_MAX_CONNECTIONS_PER_ADDRESS open connections, a new one from that
// address never reaches Node's HTTP server: it gets a fixed 429 TOO_MANY_CONNECTIONS once its first bytes arrive
// (so that an HTTP client reads it as its request's answer) and is closed, its bytes never parsed.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey } from '../auth/client-address';

/** How long a refused connection may stay open for its request's first bytes and our answer's delivery. */
const REFUSED_LINGER_MS = 2_000;

type ConnectionListener = (socket: Socket) => void;

export class ConnectionCap {
  private readonly open = new Map<string, number>();

  constructor(private readonly perAddress: number) {}

  /** Makes `server`'s connection listeners (Node's HTTP parser among them) see only admitted connections. */
  static install(server: Server, perAddress: number): ConnectionCap {
    const cap = new ConnectionCap(perAddress);
    const turns = new RefusalTurns(() => refusal(perAddress));
    const listeners = server.listeners('connection') as ConnectionListener[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (cap.admit(socket)) listeners.forEach((listener) => listener.call(server, socket));
      else refuse(socket, turns);
    });
    return cap;
  }

  /** Counts `socket` against its address until it closes, or says no when its address has `perAddress` open. */
  admit(socket: Pick<Socket, 'remoteAddress' | 'once'>): boolean {
    const address = addressKey(socket.remoteAddress ?? 'unknown');
    const count = this.open.get(address) ?? 0;
    if (count >= this.perAddress) return false;
    this.open.set(address, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left) this.open.set(address, left);
      else this.open.delete(address);
    });
    return true;
  }

  /** Open connections of `ip`'s address (for tests). */
  openOf(ip: string): number {
    return this.open.get(addressKey(ip)) ?? 0;
  }
}

function refusal(perAddress: number): string {
  const body = JSON.stringify({
    code: 'TOO_MANY_CONNECTIONS',
    message: `This address has ${perAddress} connections open to the API, the most it may: reuse them, or retry once some close.`,
    details: { limit: perAddress, retry_after_seconds: 1 },
    request_id: randomUUID(),
  });
  return [
    'HTTP/1.1 429 Too Many Requests',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Retry-After: 1',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Refused connections whose first bytes came, answered REFUSED_PER_TURN at a time, a turn after the I/O that
 * arrived meanwhile (setImmediate runs after the poll phase): 236 answers written where their bytes arrived
 * (a write and a shutdown each, the kernel delivering them on loopback) held that poll phase, and every
 * other client's request read in it, for 40 ms of CPU and several times that on a loaded machine.
 */
const REFUSED_PER_TURN = 16;

class RefusalTurns {
  private readonly waiting: Socket[] = [];
  private scheduled = false;

  constructor(private readonly answer: () => string) {}

  add(socket: Socket): void {
    this.waiting.push(socket);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    for (const socket of this.waiting.splice(0, REFUSED_PER_TURN)) if (!socket.destroyed) socket.end(this.answer());
    if (this.waiting.length) {
      this.scheduled = true;
      setImmediate(this.turn);
    }
  };
}

/** Answers once the client has written (its bytes read and dropped, never parsed), in turns, then closes. */
function refuse(socket: Socket, turns: RefusalTurns): void {
  const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  timer.unref();
  socket.on('error', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.once('data', () => {
    turns.add(socket);
    // Reading on (discarding) keeps the kernel from resetting the connection over unread bytes before the client read the answer.
    socket.resume();
  });
}
