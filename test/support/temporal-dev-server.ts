// A Temporal dev server of a spec's own, on free ports with its SQLite file in a temp folder, for specs
// that stop and restart Temporal: the shared server (TEMPORAL_ADDRESS) serves the other specs and is
// never stopped. Started with the same CLI and flags as scripts/lib/temporal.sh.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import searchAttributes from '../../libs/contracts/src/search-attributes.json';

const NAMESPACE = 'default';

const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Where scripts/lib/temporal.sh looks: TEMPORAL_CLI_PATH (the bring-up exports the one it found), PATH, the cache folder. */
function temporalCli(): string {
  const cache = process.env.STEPWISE_CACHE_DIR ?? path.join(homedir(), '.cache', 'stepwise');
  const candidates = [
    process.env.TEMPORAL_CLI_PATH,
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, 'temporal')),
    path.join(cache, 'bin', 'temporal'),
  ];
  const found = candidates.find((file) => file && executable(file));
  if (!found)
    throw new Error(
      'no temporal CLI found (TEMPORAL_CLI_PATH, PATH, ~/.cache/stepwise/bin): run the tests with `npm test`, whose bring-up provides it',
    );
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export class TemporalDevServer {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    private readonly cli: string,
    private readonly ports: { grpc: number; http: number; metrics: number },
    private readonly folder: string,
  ) {}

  static async start(): Promise<TemporalDevServer> {
    const ports = { grpc: await freePort(), http: await freePort(), metrics: await freePort() };
    const server = new TemporalDevServer(temporalCli(), ports, mkdtempSync(path.join(tmpdir(), 'stepwise-temporal-')));
    await server.launch();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.ports.grpc}`;
  }

  /** Starts the server on its ports and file (again, after stop()), and resolves once it serves the namespace with our search attributes. */
  async launch(timeoutMs = 60_000): Promise<void> {
    const args = [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--namespace',
      NAMESPACE,
      '--port',
      String(this.ports.grpc),
      '--http-port',
      String(this.ports.http),
      '--metrics-port',
      String(this.ports.metrics),
      '--db-filename',
      path.join(this.folder, 'temporal.db'),
      '--dynamic-config-value',
      'history.transferProcessorMaxPollRPS=10000',
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
      '--log-level',
      'warn',
      ...Object.entries(searchAttributes).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    ];
    const child = spawn(this.cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    const deadline = Date.now() + timeoutMs;
    while (!(await this.ready())) {
      if (child.exitCode !== null) throw new Error(`temporal server start-dev exited with ${child.exitCode}:\n${this.output.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`Temporal at ${this.address} not ready after ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** SIGTERM, and resolves once the process has exited (its file is then closed). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async ready(): Promise<boolean> {
    let connection: Connection | null = null;
    try {
      connection = await Connection.connect({ address: this.address, connectTimeout: '1s' });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
      return Object.keys(searchAttributes).every((name) => name in (customAttributes ?? {}));
    } catch {
      return false;
    } finally {
      await connection?.close();
    }
  }
}
