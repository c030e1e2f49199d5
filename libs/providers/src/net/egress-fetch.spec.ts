// The egress policy against real sockets: a refused address gets no connection at all (the listeners count
// them), whatever form the address takes, and every redirect hop is checked again.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EgressDeniedError, EgressPolicy } from './egress-fetch';

interface Listener {
  server: Server;
  port: number;
  connections: number;
}

async function listen(host: string, handler: (url: string) => { status: number; location?: string }): Promise<Listener> {
  const listener = { connections: 0 } as Listener;
  listener.server = createServer((request, response) => {
    const { status, location } = handler(request.url ?? '/');
    response.writeHead(status, location ? { location } : {}).end('ok');
  });
  listener.server.on('connection', (socket: Socket) => {
    listener.connections++;
    socket.unref();
  });
  await new Promise<void>((resolve) => listener.server.listen(0, host, resolve));
  listener.port = (listener.server.address() as AddressInfo).port;
  return listener;
}

const refusalOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as Error);

describe(EgressPolicy.name, () => {
  let canary: Listener;
  let redirector: Listener;

  beforeAll(async () => {
    // The canary is where loopback names lead; the redirector is on another loopback address the tests allow.
    canary = await listen('127.0.0.1', () => ({ status: 200 }));
    redirector = await listen('127.0.0.3', (url) => ({ status: 302, location: url === '/to-name' ? `http://localhost:${canary.port}/` : `http://127.0.0.1:${canary.port}/` }));
  });
  afterAll(async () => {
    await Promise.all([canary, redirector].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });
  beforeEach(() => {
    canary.connections = 0;
  });

  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s before connecting', async (_case, urlOf) => {
    const error = await refusalOf(new EgressPolicy([]).fetch(urlOf(canary.port)));
    expect(error).toBeInstanceOf(Error);
    const denied = error instanceof EgressDeniedError ? error : (error as { cause?: unknown }).cause;
    expect(denied).toBeInstanceOf(EgressDeniedError);
    expect((denied as Error).message).toMatch(/^EGRESS_DENIED: .* is in a (loopback|link-local \(cloud metadata\)) range/);
    expect(canary.connections).toBe(0);
  });

  it('checks every redirect hop, an address or a name', async () => {
    const sut = new EgressPolicy(['127.0.0.3/32']);
    for (const path of ['/to-address', '/to-name']) {
      const error = await refusalOf(sut.fetch(`http://127.0.0.3:${redirector.port}${path}`));
      const denied = error instanceof EgressDeniedError ? error : (error as { cause?: unknown } | null)?.cause;
      expect(denied).toBeInstanceOf(EgressDeniedError);
    }
    expect(canary.connections).toBe(0);
  });

  it('follows redirects to allowed addresses, and lets the setting name what it allows', async () => {
    const response = await new EgressPolicy(['127.0.0.3/32', '127.0.0.1']).fetch(`http://127.0.0.3:${redirector.port}/to-address`);
    expect(response.status).toBe(200);
    expect(canary.connections).toBe(1);
    expect((await new EgressPolicy(['localhost']).fetch(`http://localhost:${canary.port}/`)).status).toBe(200);
  });

  it('refuses at save a URL whose host can only be reached in a denied range', async () => {
    const sut = new EgressPolicy([]);
    expect(await sut.refusalAtSave('http://169.254.169.254/')).toContain('cloud metadata');
    expect(await sut.refusalAtSave('http://localhost:9/')).toContain('loopback');
    expect(await sut.refusalAtSave('https://93.184.216.34/')).toBeNull();
    expect(await new EgressPolicy(['localhost']).refusalAtSave('http://localhost:9/')).toBeNull();
  });
});
