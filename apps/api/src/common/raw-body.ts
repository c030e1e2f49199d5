import type { IncomingMessage } from 'node:http';

const RAW = Symbol('raw-body');

/** express.json's `verify` hook: keeps the exact bytes, which webhook signatures are computed over. */
export function keepRawBody(request: IncomingMessage, _response: unknown, body: Buffer): void {
  (request as unknown as Record<symbol, Buffer>)[RAW] = body;
}

export function rawBodyOf(request: IncomingMessage): Buffer {
  return (request as unknown as Record<symbol, Buffer>)[RAW] ?? Buffer.alloc(0);
}
