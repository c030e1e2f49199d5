// The Temporal Web UI server npm start runs (scripts/lib/temporal-ui.sh), on a free port of a spec's own, its
// codec endpoint the spec's API, with either of the two settings people get: npm start's file
// (scripts/temporal-ui/stepwise.yaml), or the one the temporalio/ui image renders from its environment
// (config/docker.yaml of the same ui-server version, in Go's module cache since the bring-up built it) with the
// environment docker-compose.yml gives it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './temporal-dev-server';

export type UiSettings = 'npm start' | 'docker compose';

const UI_SERVER_MODULE = 'github.com/temporalio/ui-server/v2@v2.42.1';

function goModuleCache(): string {
  const go = ['/usr/local/go/bin/go', 'go'].find((candidate) => candidate === 'go' || existsSync(candidate))!;
  return execFileSync(go, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
}

/** The server's arguments and environment (beside the port and the codec endpoint) for each kind of settings. */
function launchOf(settings: UiSettings): { args: string[]; env: Record<string, string> } {
  if (settings === 'npm start') {
    return {
      args: ['--root', path.join(__dirname, '..', '..', 'scripts'), '--config', 'temporal-ui', '--env', 'stepwise'],
      env: { TEMPORAL_UI_HOST: '127.0.0.1' },
    };
  }
  // docker-compose.yml's temporal-ui service: what it sets about the codec (the spec checks the file says so).
  const env = { TEMPORAL_CODEC_INCLUDE_CREDENTIALS: 'true', TEMPORAL_CODEC_PASS_ACCESS_TOKEN: 'false' };
  return { args: ['--root', path.join(goModuleCache(), UI_SERVER_MODULE), '--config', 'config', '--env', 'docker'], env };
}

export class TemporalUiServer {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** A port for the UI, known before the API starts: the API's CORS must name the UI's origin. */
  static async reserveUrl(): Promise<string> {
    return `http://127.0.0.1:${await freePort()}`;
  }

  static async start(settings: UiSettings, url: string, codecEndpoint: string, timeoutMs = 30_000): Promise<TemporalUiServer> {
    const server = process.env.TEMPORAL_UI_SERVER_PATH;
    if (!server || !existsSync(server))
      throw new Error('TEMPORAL_UI_SERVER_PATH is not set to the UI server: run the tests with `npm test`, whose bring-up builds it');
    const launch = launchOf(settings);
    const env = {
      ...process.env,
      ...launch.env,
      TEMPORAL_UI_PORT: new URL(url).port,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      TEMPORAL_CODEC_ENDPOINT: codecEndpoint,
    };
    const child = spawn(server, [...launch.args, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ui = new TemporalUiServer(child, url);
    for (const deadline = Date.now() + timeoutMs; !(await ui.answers()); await new Promise((resolve) => setTimeout(resolve, 200))) {
      if (child.exitCode !== null) throw new Error(`the UI server exited with ${child.exitCode}:\n${ui.output.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`the UI server at ${url} did not answer within ${timeoutMs} ms:\n${ui.output.slice(-2000)}`);
    }
    return ui;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }

  private async answers(): Promise<boolean> {
    return fetch(`${this.url}/api/v1/settings`).then(
      (response) => response.ok,
      () => false,
    );
  }
}
