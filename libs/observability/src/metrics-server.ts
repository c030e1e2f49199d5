// GET /metrics on a port of its own, kept off the public API port (compose does not publish it).
import { createServer, type Server } from 'node:http';

/** `more` adds text from elsewhere (the Temporal SDK's native exporter) after our own. */
export async function serveMetrics(port: number, host: string, own: () => Promise<string>, more?: () => Promise<string>): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    void Promise.all([own(), more?.().catch(() => '') ?? ''])
      .then(([text, extra]) =>
        response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text + (extra ? `\n${extra}` : '')),
      )
      .catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}
