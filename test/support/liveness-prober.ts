// GET /health/live again and again from a process of its own, so that a probe's time is the API's answer and
// the network's, never a wait on the busy event loop of jest (and of the in-process worker) that asked it.
import { spawn } from 'node:child_process';

const PROBER = `
const url = process.argv[1];
const probes = [];
let probing = true;
process.on('SIGTERM', () => (probing = false));
(async () => {
  while (probing) {
    const started = performance.now();
    const response = await fetch(url);
    await response.text();
    probes.push({ status: response.status, ms: performance.now() - started });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.stdout.write(JSON.stringify(probes));
})();
`;

export interface Probe {
  status: number;
  ms: number;
}

/** Starts probing `url` at once, every 20 ms after each answer; `stop` ends it and gives every probe. */
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
