// A server that answers the way a hostile tool would, for the specs of what the worker reads and sends:
//
//   /huge?bytes=N[&json=1]   N bytes of body, generated lazily as the client reads (chunked: no length
//                            announced), counting what it managed to write before the client went away
//   /mcp                     a minimal MCP server over streamable HTTP whose tool `dump` answers an SSE
//                            event of `bytes` bytes, generated likewise
//   /redirect?to=URL         307 to URL (another origin, say)
//   /fail?...                500 whose body quotes the request's query string and a key
//   anything else            200, recording the request's headers
//
//   const hostile = await HostileServer.start();
//   hostile.url('/huge?bytes=209715200'); await hostile.ended('/huge') // { written, whole }
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export interface HostileRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** How a streamed body ended: the bytes written, and whether the client read it whole. */
export interface StreamEnd {
  written: number;
  whole: boolean;
}

export class HostileServer {
  readonly requests: HostileRequest[] = [];
  /** The last streamed body per path (without its query): how it ended, once it has. */
  private readonly streams = new Map<string, Promise<StreamEnd>>();

  private constructor(private readonly http: Server) {}

  static async start(host = '127.0.0.1'): Promise<HostileServer> {
    const http = createServer();
    const server = new HostileServer(http);
    http.on('request', (request, response) => void server.handle(request, response));
    await new Promise<void>((resolve) => http.listen(0, host, resolve));
    return server;
  }

  get origin(): string {
    const { address, port } = this.http.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** How the last body streamed to `path` ended: written whole, or abandoned by the client after `written` bytes. */
  ended(path: string): Promise<StreamEnd> {
    const end = this.streams.get(path);
    if (!end) throw new Error(`nothing was streamed to ${path}`);
    return end;
  }

  /** The requests that reached `path`. */
  seen(path: string): HostileRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    this.http.closeAllConnections();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    const body = await readBody(request);
    this.requests.push({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers });
    switch (url.pathname) {
      case '/huge': {
        const json = url.searchParams.has('json');
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'text/plain' });
        return this.stream(url.pathname, response, Number(url.searchParams.get('bytes')), json ? '{"page":"' : '', json ? '"}' : '');
      }
      case '/mcp':
        return this.mcp(request, response, body);
      case '/redirect':
        return void response.writeHead(307, { location: url.searchParams.get('to') ?? '/' }).end();
      case '/fail':
        return void response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `refused ${url.search}`, api_key: url.searchParams.get('api_key') }));
      default:
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    }
  }

  /** `bytes` of body between `prefix` and `suffix`, a chunk at a time as the client reads. */
  private stream(path: string, response: ServerResponse, bytes: number, prefix: string, suffix: string): void {
    let written = 0;
    this.streams.set(
      path,
      new Promise((resolve) => response.on('close', () => resolve({ written, whole: written === bytes && response.writableFinished }))),
    );
    response.write(prefix);
    const pump = () => {
      while (written < bytes && !response.destroyed) {
        const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - written));
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end(suffix);
    };
    pump();
  }

  /** Enough of MCP's streamable HTTP for a client to connect, list `dump` and call it. */
  private mcp(request: IncomingMessage, response: ServerResponse, body: string): void {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const message = JSON.parse(body || '{}') as {
      id?: number;
      method?: string;
      params?: { protocolVersion?: string; arguments?: { bytes?: number } };
    };
    if (message.id === undefined) return void response.writeHead(202).end();
    const answer = (result: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    switch (message.method) {
      case 'initialize':
        return void answer({
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        });
      case 'tools/list':
        return void answer({
          tools: [
            {
              name: 'dump',
              description: 'answers `bytes` bytes',
              inputSchema: { type: 'object', properties: { bytes: { type: 'number' } } },
            },
          ],
        });
      case 'tools/call': {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const head = `event: message\ndata: {"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`;
        return this.stream('/mcp', response, Number(message.params?.arguments?.bytes ?? 0), head, '"}]}}\n\n');
      }
      default:
        return void response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } }));
    }
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}
