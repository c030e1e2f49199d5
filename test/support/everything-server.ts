// The reference MCP server from the npm registry (@modelcontextprotocol/server-everything), as a user
// would run it: `node dist/index.js streamableHttp` serves http://127.0.0.1:$PORT/mcp (sessions, SSE);
// `node dist/index.js stdio` speaks on its standard streams (stepwise starts that one itself).
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const EVERYTHING_ENTRY = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export class EverythingHttpServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /** Resolves once the server says it listens (it logs to stderr). */
  static async start(timeoutMs = 30_000): Promise<EverythingHttpServer> {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server-everything did not start in ${timeoutMs} ms: ${printed}`)), timeoutMs);
      const read = (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes(`listening on port ${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${printed}`)));
    });
    return new EverythingHttpServer(child, `http://127.0.0.1:${port}/mcp`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
