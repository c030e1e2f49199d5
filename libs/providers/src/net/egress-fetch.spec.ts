// The egress policy against real sockets: a refused address gets no connection at all (the listeners count
// them), whatever form the address takes, every redirect hop is checked again, and a hop to another origin
// carries no credential.
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

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as Error,
  );

describe(EgressPolicy.name, () => {
  let canary: Listener;
  let redirector: Listener;

  beforeAll(async () => {
    // The canary is where loopback names lead; the redirector is on another loopback address the tests allow.
    canary = await listen('127.0.0.1', () => ({ status: 200 }));
    redirector = await listen('127.0.0.3', (url) => ({
      status: 302,
      location: url === '/to-name' ? `http://localhost:${canary.port}/` : `http://127.0.0.1:${canary.port}/`,
    }));
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
    ['IPv4-compatible loopback', (port: number) => `http://[::127.0.0.1]:${port}/`],
    ['6to4 of loopback', (port: number) => `http://[2002:7f00:1::1]:${port}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s before connecting', async (_case, urlOf) => {
    const error = await refusalOf(new EgressPolicy([]).fetch(urlOf(canary.port)));
    expect(error).toBeInstanceOf(Error);
    const denied = error instanceof EgressDeniedError ? error : (error as { cause?: unknown }).cause;
    expect(denied).toBeInstanceOf(EgressDeniedError);
    expect((denied as Error).message).toMatch(/^EGRESS_DENIED: .* is in a (loopback|link-local \(cloud metadata\)|6to4) range/);
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

describe('EgressPolicy redirects', () => {
  /** What each path was sent: its method and headers. */
  const seen = new Map<string, { method: string; headers: Record<string, string | string[] | undefined> }>();
  let first: Listener;
  let second: Listener;
  const secrets = {
    authorization: 'Bearer tool-token',
    cookie: 'session=abc',
    'x-api-key': 'user-set-key',
    'webhook-id': 'msg_1',
    'webhook-timestamp': '1700000000',
    'webhook-signature': 'v1,c2lnbmF0dXJl',
    accept: 'application/json',
    'content-type': 'application/json',
  };

  beforeAll(async () => {
    // Two ports of one address are two origins.
    const record = (request: import('node:http').IncomingMessage) =>
      seen.set(`${request.socket.localPort}${request.url}`, { method: request.method ?? '', headers: request.headers });
    const hops: Record<string, (other: number) => string> = {
      '/same': () => '/landing',
      '/cross': (other) => `http://127.0.0.1:${other}/landing`,
      '/away-and-back': (other) => `http://127.0.0.1:${other}/back`,
      '/see-other': (other) => `http://127.0.0.1:${other}/landing`,
    };
    const listenRecording = async (other: () => number) => {
      const listener = { connections: 0 } as Listener;
      listener.server = createServer((request, response) => {
        record(request);
        request.resume();
        const path = request.url ?? '/';
        if (path === '/back') return response.writeHead(307, { location: `http://127.0.0.1:${first.port}/landing` }).end();
        const hop = hops[path];
        if (hop) return response.writeHead(path === '/see-other' ? 303 : 307, { location: hop(other()) }).end();
        response.writeHead(200).end('ok');
      });
      await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
      listener.port = (listener.server.address() as AddressInfo).port;
      return listener;
    };
    first = await listenRecording(() => second.port);
    second = await listenRecording(() => first.port);
  });
  afterAll(async () => {
    await Promise.all([first, second].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });
  beforeEach(() => seen.clear());

  const sut = new EgressPolicy(['127.0.0.1']);
  const send = (path: string, method = 'POST') =>
    sut.fetch(`http://127.0.0.1:${first.port}${path}`, { method, headers: secrets, body: method === 'POST' ? '{}' : undefined });

  it('keeps every header on a hop within the origin', async () => {
    expect((await send('/same')).status).toBe(200);

    expect(seen.get(`${first.port}/landing`)).toEqual({ method: 'POST', headers: expect.objectContaining(secrets) });
  });

  it('sends a hop to another origin only the content-negotiation headers: no credential, no signature, nothing a user named', async () => {
    expect((await send('/cross')).status).toBe(200);

    const landed = seen.get(`${second.port}/landing`)!;
    expect(landed.method).toBe('POST');
    for (const name of ['authorization', 'cookie', 'x-api-key', 'webhook-id', 'webhook-timestamp', 'webhook-signature'])
      expect([name, landed.headers[name]]).toEqual([name, undefined]);
    expect(landed.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json' });
  });

  it('does not give the credentials back when the chain returns to the first origin', async () => {
    expect((await send('/away-and-back')).status).toBe(200);

    expect(seen.get(`${first.port}/landing`)!.headers.authorization).toBeUndefined();
  });

  it('turns a 303 into a GET without the body or the headers that described it', async () => {
    expect((await send('/see-other')).status).toBe(200);

    const landed = seen.get(`${second.port}/landing`)!;
    expect(landed.method).toBe('GET');
    expect([landed.headers['content-type'], landed.headers.authorization]).toEqual([undefined, undefined]);
  });
});
