// GET /health/live again and again from a process of its own, so that a probe's time is the API's answer and
// the network's, never a wait on the busy event loop of jest (and of the in-process worker) that asked it; and
// from an address of its own (127.0.0.2), as an orchestrator's probe comes from another host than the tenants.
import { spawn } from 'node:child_process';

const PROBER = `
const http = require('node:http');
const url = process.argv[1];
const agent = new http.Agent({ keepAlive: true });
const probes = [];
let probing = true;
process.on('SIGTERM', () => (probing = false));
const get = () =>
  new Promise((resolve, reject) =>
    http
      .get(url, { agent, localAddress: '127.0.0.2' }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      })
      .on('error', reject),
  );
(async () => {
  while (probing) {
    const started = performance.now();
    const status = await get();
    probes.push({ status, ms: performance.now() - started, at: Date.now() });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.stdout.write(JSON.stringify(probes));
})();
`;

export interface Probe {
  status: number;
  ms: number;
  /** When it was answered (epoch ms). */
  at: number;
}

/** Starts probing `url` (a loopback URL) at once, every 20 ms after each answer; `stop` ends it and gives every probe. */
export function startLivenessProber(url: string): { stop(): Promise<Probe[]> } {
  const child = spawn(process.execPath, ['-e', PROBER, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(printed) as Probe[];
    },
  };
}
