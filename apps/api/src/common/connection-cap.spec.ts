import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { ConnectionCap } from './connection-cap';

/** A keep-alive request on a connection of its own from `localAddress`: the answer's first chunk, the connection left open. */
function ask(port: number, localAddress: string): Promise<{ socket: Socket; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => socket.write('GET /work HTTP/1.1\r\nHost: api\r\n\r\n'));
    socket.once('data', (chunk) => resolve({ socket, answer: chunk.toString() }));
    socket.once('error', reject);
  });
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe(ConnectionCap.name, () => {
  let server: Server;
  let port: number;
  let cap: ConnectionCap;
  let handled: number;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    handled = 0;
    server = createServer((_request, response) => {
      handled++;
      response.end('ok');
    });
    cap = ConnectionCap.install(server, 3);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    sockets.splice(0).forEach((socket) => socket.destroy());
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers an address past its open connections 429 TOO_MANY_CONNECTIONS, unparsed, and lets other addresses in', async () => {
    for (let i = 0; i < 3; i++) {
      const { socket, answer } = await ask(port, '127.0.0.1');
      sockets.push(socket);
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
    }
    expect(cap.openOf('127.0.0.1')).toBe(3);

    const refused = await ask(port, '127.0.0.1');
    sockets.push(refused.socket);
    const [head, body] = refused.answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 429 /);
    expect(head).toContain('Retry-After: 1');
    expect(JSON.parse(body)).toMatchObject({ code: 'TOO_MANY_CONNECTIONS', details: { limit: 3, retry_after_seconds: 1 } });
    // Its request never reached the server, and the connection is closed, not counted.
    expect(handled).toBe(3);
    await new Promise((resolve) => refused.socket.once('close', resolve));
    expect(cap.openOf('127.0.0.1')).toBe(3);

    const other = await ask(port, '127.0.0.2');
    sockets.push(other.socket);
    expect(other.answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it('admits the address again once one of its connections closes', async () => {
    for (let i = 0; i < 3; i++) sockets.push((await ask(port, '127.0.0.1')).socket);
    sockets[0].destroy();
    // The server sees the connection close a moment later.
    for (let waited = 0; cap.openOf('127.0.0.1') > 2 && waited < 100; waited++) await tick();
    expect(cap.openOf('127.0.0.1')).toBe(2);

    const again = await ask(port, '127.0.0.1');
    sockets.push(again.socket);
    expect(again.answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it('answers a burst of refused connections, many more than one turn takes, each with a request id of its own', async () => {
    for (let i = 0; i < 3; i++) sockets.push((await ask(port, '127.0.0.1')).socket);

    const refused = await Promise.all(Array.from({ length: 40 }, () => ask(port, '127.0.0.1')));
    sockets.push(...refused.map(({ socket }) => socket));
    const bodies = refused.map(({ answer }) => JSON.parse(answer.split('\r\n\r\n')[1]) as { code: string; request_id: string });
    expect(bodies.every((body) => body.code === 'TOO_MANY_CONNECTIONS')).toBe(true);
    expect(new Set(bodies.map((body) => body.request_id)).size).toBe(40);
    expect(handled).toBe(3);
  });
});
